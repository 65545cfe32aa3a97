import CDBus

/// Encoding into and decoding from a libdbus message body through `DBusMessageIter`s. Every iterator lives on the
/// heap for the duration of its container, because `dbus_message_iter_open_container` keeps a pointer to the parent.
extension DBusMessage {
    /// Appends `values` as the message body (`dbus_message_iter_init_append`). The values are validated first
    /// (``DBusValue/validate()``), so libdbus' fatal argument checks are never reached.
    func append(_ values: [DBusValue]) throws(DBusError) {
        for (i, value) in values.enumerated() {
            do { try value.validate() } catch { throw error.prefixed(.argument(i)) }
        }
        do {
            _ = try DBusSignature(values.map(\.type))
        } catch {
            throw .invalidValue(path: [], reason: "the body's signature is longer than 255 characters")
        }
        let iter = HeapIterator()
        dbus_message_iter_init_append(pointer, iter.pointer)
        for (i, value) in values.enumerated() {
            do { try value.append(to: iter.pointer) } catch { throw error.prefixed(.argument(i)) }
        }
    }

    /// Decodes the whole body (`dbus_message_iter_init`). Unix fds come back as new ``OwnedFileDescriptor``s.
    func arguments() throws(DBusError) -> [DBusValue] {
        let iter = HeapIterator()
        guard dbus_message_iter_init(pointer, iter.pointer) != 0 else { return [] }
        var result: [DBusValue] = []
        var index = 0
        while dbus_message_iter_get_arg_type(iter.pointer) != CDBUS_TYPE_INVALID {
            do { result.append(try DBusValue.read(from: iter.pointer)) } catch { throw error.prefixed(.argument(index)) }
            index += 1
            dbus_message_iter_next(iter.pointer)
        }
        return result
    }
}

/// One zero-initialised `DBusMessageIter` on the heap, freed with its owner.
final class HeapIterator {
    let pointer: UnsafeMutablePointer<DBusMessageIter>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: DBusMessageIter())
    }

    deinit { pointer.deallocate() }
}

extension DBusValue {
    // MARK: Encoding

    /// Appends this (already validated) value at `iter`.
    fileprivate func append(to iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) {
        switch self {
        case .byte(let v): try Self.appendBasic(iter, CDBUS_TYPE_BYTE, v)
        case .bool(let v): try Self.appendBasic(iter, CDBUS_TYPE_BOOLEAN, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try Self.appendBasic(iter, CDBUS_TYPE_INT16, v)
        case .uint16(let v): try Self.appendBasic(iter, CDBUS_TYPE_UINT16, v)
        case .int32(let v): try Self.appendBasic(iter, CDBUS_TYPE_INT32, v)
        case .uint32(let v): try Self.appendBasic(iter, CDBUS_TYPE_UINT32, v)
        case .int64(let v): try Self.appendBasic(iter, CDBUS_TYPE_INT64, v)
        case .uint64(let v): try Self.appendBasic(iter, CDBUS_TYPE_UINT64, v)
        case .double(let v): try Self.appendBasic(iter, CDBUS_TYPE_DOUBLE, v)
        case .string(let v): try Self.appendString(iter, CDBUS_TYPE_STRING, v)
        case .objectPath(let v): try Self.appendString(iter, CDBUS_TYPE_OBJECT_PATH, v.rawValue)
        case .signature(let v): try Self.appendString(iter, CDBUS_TYPE_SIGNATURE, v.rawValue)
        case .unixFD(let owner):
            // libdbus dup()s the descriptor; the owner keeps its own.
            guard let fd = owner.rawValue else {
                throw .invalidValue(path: [], reason: "file descriptor was already taken or closed")
            }
            try Self.appendBasic(iter, CDBUS_TYPE_UNIX_FD, fd)
        case .variant(let inner):
            try Self.container(iter, CDBUS_TYPE_VARIANT, inner.signature) { sub throws(DBusError) in
                do throws(DBusError) { try inner.append(to: sub) } catch { throw error.prefixed(.variant) }
            }
        case .array(let element, let elements):
            try Self.container(iter, CDBUS_TYPE_ARRAY, element.signature) { sub throws(DBusError) in
                for (i, e) in elements.enumerated() {
                    do throws(DBusError) { try e.append(to: sub) } catch { throw error.prefixed(.index(i)) }
                }
            }
        case .dictionary(let key, let value, let entries):
            try Self.container(iter, CDBUS_TYPE_ARRAY, "{\(key.signature)\(value.signature)}") { sub throws(DBusError) in
                for entry in entries {
                    do throws(DBusError) {
                        try Self.container(sub, CDBUS_TYPE_DICT_ENTRY, nil) { pair throws(DBusError) in
                            try entry.key.append(to: pair)
                            try entry.value.append(to: pair)
                        }
                    } catch { throw error.prefixed(.key(entry.key.keyDescription)) }
                }
            }
        case .structure(let fields):
            try Self.container(iter, CDBUS_TYPE_STRUCT, nil) { sub throws(DBusError) in
                for (i, f) in fields.enumerated() {
                    do throws(DBusError) { try f.append(to: sub) } catch { throw error.prefixed(.field(i)) }
                }
            }
        }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Int32,
                                       _ value: T) throws(DBusError) {
        var copy = value
        guard dbus_message_iter_append_basic(iter, code, &copy) != 0 else {
            throw .outOfMemory(function: "dbus_message_iter_append_basic")
        }
    }

    /// Strings are passed as a pointer to the `char*` (`const char **`), as libdbus expects.
    private static func appendString(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Int32,
                                     _ value: String) throws(DBusError) {
        let ok = value.withCString { chars in
            var pointer: UnsafePointer<CChar>? = chars
            return dbus_message_iter_append_basic(iter, code, &pointer)
        }
        guard ok != 0 else { throw .outOfMemory(function: "dbus_message_iter_append_basic") }
    }

    /// Opens a container, fills it, closes it; abandons it if filling fails.
    private static func container(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: Int32, _ signature: String?,
                                  _ fill: (UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> Void)
        throws(DBusError) {
        let sub = HeapIterator()
        let opened = signature.map { dbus_message_iter_open_container(iter, code, $0, sub.pointer) }
            ?? dbus_message_iter_open_container(iter, code, nil, sub.pointer)
        guard opened != 0 else { throw .outOfMemory(function: "dbus_message_iter_open_container") }
        do {
            try fill(sub.pointer)
        } catch {
            dbus_message_iter_abandon_container(iter, sub.pointer)
            throw error
        }
        guard dbus_message_iter_close_container(iter, sub.pointer) != 0 else {
            throw .outOfMemory(function: "dbus_message_iter_close_container")
        }
    }

    // MARK: Decoding

    /// Reads the value at `iter` (which must not be at the end).
    fileprivate static func read(from iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> DBusValue {
        let code = dbus_message_iter_get_arg_type(iter)
        switch code {
        case CDBUS_TYPE_BYTE: return .byte(readBasic(iter, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .bool(readBasic(iter, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(readBasic(iter, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(readBasic(iter, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(readBasic(iter, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(readBasic(iter, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(readBasic(iter, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(readBasic(iter, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(readBasic(iter, Double(0)))
        case CDBUS_TYPE_STRING: return .string(readString(iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(DBusObjectPath(unchecked: readString(iter)))
        case CDBUS_TYPE_SIGNATURE:
            let text = readString(iter)
            do { return .signature(try DBusSignature(text)) } catch {
                throw .malformed(path: [], reason: "invalid signature value '\(text)'")
            }
        case CDBUS_TYPE_UNIX_FD:
            // get_basic returns a NEW dup the caller owns, or -1 when the message carries no such fd.
            let fd = readBasic(iter, Int32(-1))
            guard fd >= 0 else {
                throw .malformed(path: [], reason: "unix fd missing from the message (not passed, or dup failed)")
            }
            return .unixFD(OwnedFileDescriptor(taking: fd))
        case CDBUS_TYPE_VARIANT:
            let sub = HeapIterator()
            dbus_message_iter_recurse(iter, sub.pointer)
            guard dbus_message_iter_get_arg_type(sub.pointer) != CDBUS_TYPE_INVALID else {
                throw .malformed(path: [.variant], reason: "empty variant")
            }
            do { return .variant(try read(from: sub.pointer)) } catch { throw error.prefixed(.variant) }
        case CDBUS_TYPE_ARRAY:
            let type = try currentType(iter)
            let sub = HeapIterator()
            dbus_message_iter_recurse(iter, sub.pointer)
            switch type {
            case .dictionary(let key, let value):
                var entries: [Entry] = []
                while dbus_message_iter_get_arg_type(sub.pointer) == CDBUS_TYPE_DICT_ENTRY {
                    let pair = HeapIterator()
                    dbus_message_iter_recurse(sub.pointer, pair.pointer)
                    let k = try read(from: pair.pointer)
                    guard dbus_message_iter_next(pair.pointer) != 0 else {
                        throw .malformed(path: [.key(k.keyDescription)], reason: "dict entry without a value")
                    }
                    do { entries.append(Entry(k, try read(from: pair.pointer))) } catch {
                        throw error.prefixed(.key(k.keyDescription))
                    }
                    dbus_message_iter_next(sub.pointer)
                }
                return .dictionary(key: key, value: value, entries)
            case .array(let element):
                var elements: [DBusValue] = []
                while dbus_message_iter_get_arg_type(sub.pointer) != CDBUS_TYPE_INVALID {
                    do { elements.append(try read(from: sub.pointer)) } catch { throw error.prefixed(.index(elements.count)) }
                    dbus_message_iter_next(sub.pointer)
                }
                return .array(element: element, elements)
            default:
                throw .malformed(path: [], reason: "array iterator with signature \(type)")
            }
        case CDBUS_TYPE_STRUCT:
            let sub = HeapIterator()
            dbus_message_iter_recurse(iter, sub.pointer)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(sub.pointer) != CDBUS_TYPE_INVALID {
                do { fields.append(try read(from: sub.pointer)) } catch { throw error.prefixed(.field(fields.count)) }
                dbus_message_iter_next(sub.pointer)
            }
            guard !fields.isEmpty else { throw .malformed(path: [], reason: "empty struct") }
            return .structure(fields)
        default:
            throw .malformed(path: [], reason: "unknown type code \(code)")
        }
    }

    private static func readBasic<T: BitwiseCopyable>(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(iter, &value)
        return value
    }

    private static func readString(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    /// The complete type at `iter` (`dbus_message_iter_get_signature`, freed with `dbus_free`).
    private static func currentType(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> DBusType {
        guard let chars = dbus_message_iter_get_signature(iter) else {
            throw .outOfMemory(function: "dbus_message_iter_get_signature")
        }
        defer { dbus_free(chars) }
        let text = String(cString: chars)
        do { return try DBusType(parsing: text) } catch {
            throw .malformed(path: [], reason: "invalid signature '\(text)' in message")
        }
    }
}
