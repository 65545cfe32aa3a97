@testable import PortalCapture

/// Puts values through a real libdbus message: `dbus_message_new_method_call`, encode, then decode; optionally
/// also through `dbus_message_marshal` / `dbus_message_demarshal` bytes in between.
enum MessageRoundTrip {
    static func newMessage() throws(DBusError) -> DBusMessage {
        try DBusMessage.methodCall(destination: "org.example.Peer", path: DBusObjectPath("/org/example/Object"),
                                   interface: "org.example.Interface", member: "Method")
    }

    static func throughMessage(_ values: [DBusValue]) throws(DBusError) -> [DBusValue] {
        let message = try newMessage()
        try message.append(values)
        return try message.arguments()
    }

    static func throughBytes(_ values: [DBusValue]) throws(DBusError) -> [DBusValue] {
        try DBusMessage.demarshal(bytes(of: values)).arguments()
    }

    static func bytes(of values: [DBusValue]) throws(DBusError) -> [UInt8] {
        let message = try newMessage()
        try message.append(values)
        return try message.marshal()
    }
}
