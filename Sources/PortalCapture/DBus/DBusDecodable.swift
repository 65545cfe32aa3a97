/// A Swift type that can be read from a ``DBusValue``, with errors that say where and what went wrong.
///
/// Conformers check the shape and throw ``DBusError/malformed(path:reason:)``: a type mismatch reads
/// `expected a(ua{sv}), got s`. Containers prefix their children's errors with the child's position, so the
/// final path reads `key 'streams' / [0] / field 1`. A conforming struct for a portal stream:
/// ```swift
/// struct Stream: DBusDecodable {          // (ua{sv})
///     static let dbusType = DBusType.structure([.uint32, .vardict])
///     let node: UInt32, properties: DBusVardict
///     init(dbusValue: DBusValue) throws(DBusError) {
///         node = try dbusValue.field(0, as: UInt32.self)
///         properties = try dbusValue.field(1, as: DBusVardict.self)
///     }
/// }
/// ```
public protocol DBusDecodable: Sendable {
    /// The D-Bus type this Swift type reads (and the "expected" of a mismatch error).
    static var dbusType: DBusType { get }
    /// Reads `dbusValue`, looking through variants where the type is not itself a variant.
    init(dbusValue: DBusValue) throws(DBusError)
}

extension DBusError {
    /// A ``malformed(path:reason:)`` at the current position: `expected <type>, got <actual type>`.
    public static func typeMismatch(expected: DBusType, got value: DBusValue) -> DBusError {
        .malformed(path: [], reason: "expected \(expected), got \(value.type)")
    }
}

// MARK: - Typed access on values, structs and bodies

extension DBusValue {
    /// This value as `T` (variants are looked through). Throws ``DBusError/malformed(path:reason:)``.
    public func decode<T: DBusDecodable>(as type: T.Type = T.self) throws(DBusError) -> T {
        try T(dbusValue: self)
    }

    /// The fields of a struct (`(...)`), after looking through variants. Throws when this is not a struct.
    public func structFields() throws(DBusError) -> [DBusValue] {
        guard case .structure(let fields) = unwrappingVariants else {
            throw .malformed(path: [], reason: "expected a struct, got \(unwrappingVariants.type)")
        }
        return fields
    }

    /// Field `index` of a struct as `T`; errors carry `field <index>` in their path.
    public func field<T: DBusDecodable>(_ index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
        let fields = try structFields()
        guard fields.indices.contains(index) else {
            throw .malformed(path: [.field(index)], reason: "missing (the struct \(unwrappingVariants.type) has "
                             + "\(fields.count) fields)")
        }
        do { return try T(dbusValue: fields[index]) } catch { throw error.prefixed(.field(index)) }
    }
}

extension Array where Element == DBusValue {
    /// The signature of a message body made of these arguments, e.g. `ua{sv}`.
    public var signature: String { map(\.signature).joined() }

    /// Argument `index` of a message body as `T`; errors carry `arg <index>` in their path.
    public func argument<T: DBusDecodable>(_ index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
        guard indices.contains(index) else {
            throw .malformed(path: [.argument(index)],
                             reason: "missing (the body '\(signature)' has \(count) arguments)")
        }
        do { return try T(dbusValue: self[index]) } catch { throw error.prefixed(.argument(index)) }
    }

    /// Throws ``DBusError/malformed(path:reason:)`` unless the body's signature is exactly `expected`.
    public func requireSignature(_ expected: String) throws(DBusError) {
        guard signature == expected else {
            throw .malformed(path: [], reason: "expected a body of signature '\(expected)', got '\(signature)'")
        }
    }
}

// MARK: - Conformances of basic types

extension DBusDecodable {
    /// Shared body of the basic conformances: unwrap variants, then extract or report a mismatch.
    static func extract<T>(_ value: DBusValue, _ pick: (DBusValue) -> T?) throws(DBusError) -> T {
        let inner = value.unwrappingVariants
        guard let result = pick(inner) else { throw .typeMismatch(expected: dbusType, got: inner) }
        return result
    }
}

extension UInt8: DBusDecodable {
    public static var dbusType: DBusType { .byte }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .byte(let v) = $0 { v } else { nil } }
    }
}

extension Bool: DBusDecodable {
    public static var dbusType: DBusType { .bool }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .bool(let v) = $0 { v } else { nil } }
    }
}

extension Int16: DBusDecodable {
    public static var dbusType: DBusType { .int16 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .int16(let v) = $0 { v } else { nil } }
    }
}

extension UInt16: DBusDecodable {
    public static var dbusType: DBusType { .uint16 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .uint16(let v) = $0 { v } else { nil } }
    }
}

extension Int32: DBusDecodable {
    public static var dbusType: DBusType { .int32 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .int32(let v) = $0 { v } else { nil } }
    }
}

extension UInt32: DBusDecodable {
    public static var dbusType: DBusType { .uint32 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .uint32(let v) = $0 { v } else { nil } }
    }
}

extension Int64: DBusDecodable {
    public static var dbusType: DBusType { .int64 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .int64(let v) = $0 { v } else { nil } }
    }
}

extension UInt64: DBusDecodable {
    public static var dbusType: DBusType { .uint64 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .uint64(let v) = $0 { v } else { nil } }
    }
}

extension Double: DBusDecodable {
    public static var dbusType: DBusType { .double }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .double(let v) = $0 { v } else { nil } }
    }
}

extension String: DBusDecodable {
    public static var dbusType: DBusType { .string }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .string(let v) = $0 { v } else { nil } }
    }
}

extension DBusObjectPath: DBusDecodable {
    public static var dbusType: DBusType { .objectPath }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .objectPath(let v) = $0 { v } else { nil } }
    }
}

extension DBusSignature: DBusDecodable {
    public static var dbusType: DBusType { .signature }
    public init(dbusValue: DBusValue) throws(DBusError) {
        self = try Self.extract(dbusValue) { if case .signature(let v) = $0 { v } else { nil } }
    }
}

extension OwnedFileDescriptor: DBusDecodable {
    public static var dbusType: DBusType { .unixFD }
    /// A new owner of a duplicate of the value's descriptor (an initializer cannot return the value's own owner
    /// object); the value keeps, and eventually closes, the original.
    public convenience init(dbusValue: DBusValue) throws(DBusError) {
        let owner = try Self.extract(dbusValue) { if case .unixFD(let v) = $0 { v } else { nil } }
        guard let fd = owner.rawValue else {
            throw .malformed(path: [], reason: "the file descriptor was already taken or closed")
        }
        try self.init(duplicating: fd)
    }
}

extension DBusValue: DBusDecodable {
    /// "Any value": as a Swift type, a `DBusValue` stands for a variant.
    public static var dbusType: DBusType { .variant }
    /// Any value; one level of variant is looked through (so `[String: DBusValue]` reads `a{sv}` contents).
    public init(dbusValue: DBusValue) throws(DBusError) {
        if case .variant(let inner) = dbusValue { self = inner } else { self = dbusValue }
    }
}

extension Array: DBusDecodable where Element: DBusDecodable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    public init(dbusValue: DBusValue) throws(DBusError) {
        let inner = dbusValue.unwrappingVariants
        guard case .array(_, let elements) = inner else { throw .typeMismatch(expected: Self.dbusType, got: inner) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (i, e) in elements.enumerated() {
            do { result.append(try Element(dbusValue: e)) } catch { throw error.prefixed(.index(i)) }
        }
        self = result
    }
}

extension Dictionary: DBusDecodable where Key: DBusDecodable, Value: DBusDecodable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }
    /// Reads `a{kv}`; when a key repeats, the last entry wins.
    public init(dbusValue: DBusValue) throws(DBusError) {
        let inner = dbusValue.unwrappingVariants
        guard case .dictionary(_, _, let entries) = inner else {
            throw .typeMismatch(expected: Self.dbusType, got: inner)
        }
        var result: [Key: Value] = [:]
        for entry in entries {
            do {
                result[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
            } catch { throw error.prefixed(.key(entry.key.keyDescription)) }
        }
        self = result
    }
}
