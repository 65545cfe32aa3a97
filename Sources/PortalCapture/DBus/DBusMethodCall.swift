import Synchronization

/// A method call received by an exported object, and the handle to answer it — now, later from any thread, or
/// never. The reply is `dbus_message_new_method_return` / `dbus_message_new_error` sent with `dbus_connection_send`.
///
/// Exactly one reply is sent; a second one throws ``DBusError/alreadyReplied(member:)``. When the caller set
/// `NO_REPLY_EXPECTED`, replying is accepted and nothing is sent.
public final class DBusMethodCall: Sendable {
    /// The caller's unique bus name (`:1.42`).
    public let sender: String
    /// The object path called (for a fallback export, the full path below the registered prefix).
    public let path: DBusObjectPath
    /// The interface the call was routed to (taken from the header, or found by member name when the header has none).
    public let interface: String
    public let member: String
    /// The decoded body.
    public let arguments: [DBusValue]
    /// False when the caller set `NO_REPLY_EXPECTED` (`dbus_message_get_no_reply`).
    public let expectsReply: Bool

    let message: DBusMessage
    let engine: DBusConnectionEngine
    let outSignature: String?
    private let replied = Atomic<Bool>(false)

    init(message: DBusMessage, engine: DBusConnectionEngine, sender: String, path: DBusObjectPath, interface: String,
         member: String, arguments: [DBusValue], outSignature: String?) {
        self.message = message
        self.engine = engine
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.expectsReply = message.expectsReply
        self.outSignature = outSignature
    }

    /// True once a reply (or error reply) was sent.
    public var hasReplied: Bool { replied.load(ordering: .acquiring) }

    /// Answers with `body`. Throws ``DBusError/invalidValue(path:reason:)`` when the body does not match the
    /// method's declared out signature or cannot be encoded (the call stays unanswered, so you can still reply
    /// with an error), ``DBusError/alreadyReplied(member:)``, or ``DBusError/disconnected``.
    public func reply(_ body: [DBusValue] = []) throws(DBusError) {
        if let outSignature, body.signature != outSignature {
            throw .invalidValue(path: [], reason: "reply to \(member) has signature '\(body.signature)', "
                                + "declared '\(outSignature)'")
        }
        let reply = try message.methodReturn()
        try reply.append(body)
        try send(reply)
    }

    /// Answers with the error `name` (e.g. `org.freedesktop.portal.Error.InvalidArgument`) and `message`.
    public func reply(errorName name: String, message text: String) throws(DBusError) {
        try send(message.errorReply(name: name, message: text))
    }

    /// Answers with `error` as a D-Bus error: ``DBusError/remote(name:message:)`` as itself,
    /// ``DBusError/malformed(path:reason:)`` as `org.freedesktop.DBus.Error.InvalidArgs`, anything else as
    /// `org.freedesktop.DBus.Error.Failed`, with the error's description as text.
    public func reply(error: DBusError) throws(DBusError) {
        let (name, text) = Self.errorReply(for: error)
        try reply(errorName: name, message: text)
    }

    static func errorReply(for error: DBusError) -> (name: String, message: String) {
        switch error {
        case .remote(let name, let message): (name, message)
        case .malformed: ("org.freedesktop.DBus.Error.InvalidArgs", error.description)
        default: ("org.freedesktop.DBus.Error.Failed", error.description)
        }
    }

    private func send(_ reply: DBusMessage) throws(DBusError) {
        guard !replied.exchange(true, ordering: .acquiringAndReleasing) else { throw .alreadyReplied(member: member) }
        guard expectsReply else { return }
        try engine.send(reply)
    }
}
