/// One D-Bus value of any type: what a message body is made of. Containers carry their element types, so an
/// empty array or dictionary still knows its signature (`dbus_message_iter_open_container` needs it).
///
/// Encoding and decoding through a `DBusMessageIter` live in `DBusValue+Message.swift`; typed access
/// (`value.decode(as: UInt32.self)`) in `DBusDecodable.swift`. Only `variant` is an `indirect` case: the other
/// containers already keep their children in array storage, so basic values need no box of their own.
public enum DBusValue: Sendable, Equatable, CustomStringConvertible {
    case byte(UInt8)                 // y
    case bool(Bool)                  // b
    case int16(Int16)                // n
    case uint16(UInt16)              // q
    case int32(Int32)                // i
    case uint32(UInt32)              // u
    case int64(Int64)                // x
    case uint64(UInt64)              // t
    case double(Double)              // d
    case string(String)              // s
    case objectPath(DBusObjectPath)  // o
    case signature(DBusSignature)    // g
    case unixFD(OwnedFileDescriptor) // h
    /// `v`: a value that carries its own signature.
    indirect case variant(DBusValue)
    /// `a<element>`; every element must have type `element`.
    case array(element: DBusType, [DBusValue])
    /// `a{<key><value>}`, in wire order (duplicate keys are kept as sent).
    case dictionary(key: DBusType, value: DBusType, [Entry])
    /// `(...)`: one or more fields.
    case structure([DBusValue])

    /// One dict entry (`{kv}`) of a ``dictionary(key:value:_:)``.
    public struct Entry: Sendable, Equatable {
        public var key: DBusValue
        public var value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The complete type of this value.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .bool: .bool
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// The signature text of ``type``, e.g. `a{sv}`.
    public var signature: String { type.signature }

    /// The value inside any number of variants (`v` → its contents), or `self` when it is no variant.
    public var unwrappingVariants: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }

    public var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .objectPath(let v): "objpath '\(v)'"
        case .signature(let v): "signature '\(v)'"
        case .unixFD(let v): v.description
        case .variant(let v): "<\(v)>"
        case .array(_, let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

// MARK: - Convenience constructors

extension DBusValue {
    /// An `a{sv}` from a Swift dictionary; each value is wrapped in a variant, keys are sorted so the bytes on the
    /// wire are reproducible.
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .variant,
                    entries.sorted { $0.key < $1.key }.map { Entry(.string($0.key), .variant($0.value)) })
    }

    /// An `as`.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(element: .string, strings.map { .string($0) })
    }
}

// MARK: - Validation before sending

extension DBusValue {
    /// Checks what libdbus would otherwise reject with a fatal `_dbus_return_if_fail` check: element types that do
    /// not match their container, a NUL inside a string, a closed fd, an empty struct, a non-basic dictionary key,
    /// a signature over 255 characters or containers nested deeper than 32 arrays / 32 structs / 64 in total.
    /// Throws ``DBusError/invalidValue(path:reason:)`` with the path of the first offending value.
    public func validate() throws(DBusError) {
        try validateType(type)
        try validate(depth: 0)
    }

    private func validateType(_ type: DBusType) throws(DBusError) {
        do {
            _ = try DBusType(parsing: type.signature)
        } catch {
            throw .invalidValue(path: [], reason: "bad type \(type.signature): \(error)")
        }
    }

    private func validate(depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidValue(path: [], reason: "containers nested deeper than 64") }
        switch self {
        case .string(let s):
            guard !s.utf8.contains(0) else { throw .invalidValue(path: [], reason: "string contains a NUL character") }
        case .unixFD(let fd):
            guard fd.rawValue != nil else {
                throw .invalidValue(path: [], reason: "file descriptor was already taken or closed")
            }
        case .variant(let inner):
            try inner.validateType(inner.type)
            do { try inner.validate(depth: depth + 1) } catch { throw error.prefixed(.variant) }
        case .array(let element, let elements):
            for (i, e) in elements.enumerated() {
                guard e.type == element else {
                    throw .invalidValue(path: [.index(i)], reason: "element of type \(e.type) in an array of \(element)")
                }
                do { try e.validate(depth: depth + 1) } catch { throw error.prefixed(.index(i)) }
            }
        case .dictionary(let keyType, let valueType, let entries):
            guard keyType.isBasic else {
                throw .invalidValue(path: [], reason: "dictionary key type \(keyType) is not a basic type")
            }
            for entry in entries {
                let name = entry.key.keyDescription
                guard entry.key.type == keyType, entry.value.type == valueType else {
                    throw .invalidValue(path: [.key(name)], reason: "entry {\(entry.key.type)\(entry.value.type)} "
                                        + "in a dictionary of {\(keyType)\(valueType)}")
                }
                do {
                    try entry.key.validate(depth: depth + 2)
                    try entry.value.validate(depth: depth + 2)
                } catch { throw error.prefixed(.key(name)) }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidValue(path: [], reason: "empty struct") }
            for (i, f) in fields.enumerated() {
                do { try f.validate(depth: depth + 1) } catch { throw error.prefixed(.field(i)) }
            }
        default:
            break
        }
    }

    /// How a dictionary key appears in a ``DBusValuePath``: the text of a string, the number of a number.
    var keyDescription: String {
        switch self {
        case .string(let s): s
        case .objectPath(let p): p.rawValue
        case .signature(let g): g.rawValue
        case .byte(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        default: description
        }
    }
}
