/// A validated D-Bus signature: the value of a `g` (`DBUS_TYPE_SIGNATURE`) argument, and the text of a message
/// body's type list (`dbus_message_get_signature`). Zero or more complete types, at most 255 characters.
public struct DBusSignature: Sendable, Hashable, CustomStringConvertible {
    /// The signature text, e.g. `sa{sv}`.
    public let rawValue: String
    /// The complete types it lists.
    public let types: [DBusType]

    /// Validates `rawValue`; throws ``DBusError/invalidArgument(_:)`` naming the problem.
    public init(_ rawValue: String) throws(DBusError) {
        self.types = try DBusType.parseList(rawValue)
        self.rawValue = rawValue
    }

    /// The signature listing `types`. Throws when it would exceed 255 characters.
    public init(_ types: [DBusType]) throws(DBusError) {
        try self.init(types.map(\.signature).joined())
    }

    public var description: String { rawValue }

    public static func == (lhs: DBusSignature, rhs: DBusSignature) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
