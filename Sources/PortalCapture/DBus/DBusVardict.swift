/// An `a{sv}` dictionary ("vardict"): the options and results of every portal call. Values are stored without
/// their variant wrapper; encoding wraps them again, with keys sorted.
///
/// Build one from a literal (`["handle_token": token, "types": UInt32(3)]`) and read one with typed accessors
/// that throw ``DBusError/malformed(path:reason:)`` naming the key, e.g.
/// `key 'streams': expected a(ua{sv}), got s` or `key 'version': missing (present: a, b)`.
public struct DBusVardict: Sendable, Equatable, CustomStringConvertible, ExpressibleByDictionaryLiteral {
    /// The entries, each value without its variant wrapper.
    public var entries: [String: DBusValue]

    public init(_ entries: [String: DBusValue] = [:]) { self.entries = entries }

    /// Each value is stored as its ``DBusEncodable/dbusValue``; a ``DBusValue`` is stored as is.
    public init(dictionaryLiteral elements: (String, any DBusEncodable)...) {
        entries = [:]
        for (key, value) in elements { self[key] = Self.plain(value) }
    }

    private static func plain(_ value: any DBusEncodable) -> DBusValue {
        (value as? DBusValue) ?? value.dbusValue
    }

    public subscript(key: String) -> DBusValue? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// Sets `key` to an encodable Swift value (`nil` removes it), so unset options are simply not sent.
    public mutating func set(_ key: String, _ value: (any DBusEncodable)?) {
        entries[key] = value.map(Self.plain)
    }

    public var keys: [String] { entries.keys.sorted() }
    public var isEmpty: Bool { entries.isEmpty }
    public func contains(_ key: String) -> Bool { entries[key] != nil }

    /// The value of a required key as `T`. Throws when the key is missing or has another type.
    public func value<T: DBusDecodable>(_ key: String, as type: T.Type = T.self) throws(DBusError) -> T {
        guard let value = entries[key] else {
            throw .malformed(path: [.key(key)], reason: "missing (present: \(keys.joined(separator: ", ")))")
        }
        do { return try T(dbusValue: value) } catch { throw error.prefixed(.key(key)) }
    }

    /// The value of an optional key as `T`, or `nil` when absent. Throws when present with another type.
    public func valueIfPresent<T: DBusDecodable>(_ key: String, as type: T.Type = T.self) throws(DBusError) -> T? {
        guard entries[key] != nil else { return nil }
        return try value(key, as: type)
    }

    public func requireUInt32(_ key: String) throws(DBusError) -> UInt32 { try value(key, as: UInt32.self) }
    public func requireString(_ key: String) throws(DBusError) -> String { try value(key, as: String.self) }
    public func requireBool(_ key: String) throws(DBusError) -> Bool { try value(key, as: Bool.self) }
    public func requireObjectPath(_ key: String) throws(DBusError) -> DBusObjectPath {
        try value(key, as: DBusObjectPath.self)
    }

    public var description: String {
        "{" + keys.map { "\($0): \(entries[$0]!)" }.joined(separator: ", ") + "}"
    }
}

extension DBusVardict: DBusEncodable, DBusDecodable {
    public static var dbusType: DBusType { .vardict }

    public var dbusValue: DBusValue { .vardict(entries) }

    /// Reads an `a{sv}` (through variants); when a key repeats, the last entry wins.
    public init(dbusValue: DBusValue) throws(DBusError) {
        let inner = dbusValue.unwrappingVariants
        guard case .dictionary(.string, .variant, let list) = inner else {
            throw .typeMismatch(expected: .vardict, got: inner)
        }
        var entries: [String: DBusValue] = [:]
        for entry in list {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else {
                throw .malformed(path: [], reason: "entry {\(entry.key.type)\(entry.value.type)} in an a{sv}")
            }
            entries[key] = value
        }
        self.entries = entries
    }
}
