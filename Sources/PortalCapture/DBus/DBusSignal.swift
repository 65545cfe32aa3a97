/// A received D-Bus signal (`DBUS_MESSAGE_TYPE_SIGNAL`), delivered to the subscriptions whose
/// ``DBusMatchRule`` it matches.
public struct DBusSignal: Sendable, CustomStringConvertible {
    /// The unique name of the emitter (`:1.42`), or `org.freedesktop.DBus` for the bus itself.
    public let sender: String
    public let path: DBusObjectPath
    public let interface: String
    public let member: String
    /// The decoded body; unix fds in it are owned by the values.
    public let arguments: [DBusValue]

    public init(sender: String, path: DBusObjectPath, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    public var description: String {
        "\(interface).\(member) from \(sender) at \(path): \(arguments.map(\.description).joined(separator: ", "))"
    }
}
