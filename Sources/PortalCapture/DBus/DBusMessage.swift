import CDBus

/// One libdbus `DBusMessage*` with one reference owned by this object (`dbus_message_unref` in `deinit`).
///
/// Thread safety: a message is built by one thread (its header and body appended) and then handed over, e.g. to
/// the connection's queue for `dbus_connection_send`; received messages are locked by libdbus and only read.
/// `@unchecked Sendable` relies on that hand-off.
final class DBusMessage: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Adopts a reference the caller owned (from `dbus_message_new_*`, `dbus_pending_call_steal_reply`...).
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Takes a new reference (`dbus_message_ref`), e.g. for a message borrowed inside a filter callback.
    init(retaining pointer: OpaquePointer) {
        self.pointer = dbus_message_ref(pointer)
    }

    deinit { dbus_message_unref(pointer) }

    // MARK: Creating

    /// `dbus_message_new_method_call`, after validating every name (libdbus would abort on an invalid one).
    static func methodCall(destination: String?, path: DBusObjectPath, interface: String?,
                           member: String) throws(DBusError) -> DBusMessage {
        if let destination { try DBusNames.validateBusName(destination) }
        if let interface { try DBusNames.validateInterface(interface) }
        try DBusNames.validateMember(member)
        guard let m = dbus_message_new_method_call(destination, path.rawValue, interface, member) else {
            throw .outOfMemory(function: "dbus_message_new_method_call")
        }
        return DBusMessage(adopting: m)
    }

    /// `dbus_message_new_signal`.
    static func signal(path: DBusObjectPath, interface: String, member: String) throws(DBusError) -> DBusMessage {
        try DBusNames.validateInterface(interface)
        try DBusNames.validateMember(member)
        guard let m = dbus_message_new_signal(path.rawValue, interface, member) else {
            throw .outOfMemory(function: "dbus_message_new_signal")
        }
        return DBusMessage(adopting: m)
    }

    /// `dbus_message_new_method_return` answering this method call.
    func methodReturn() throws(DBusError) -> DBusMessage {
        guard let m = dbus_message_new_method_return(pointer) else {
            throw .outOfMemory(function: "dbus_message_new_method_return")
        }
        return DBusMessage(adopting: m)
    }

    /// `dbus_message_new_error` answering this method call.
    func errorReply(name: String, message: String) throws(DBusError) -> DBusMessage {
        try DBusNames.validateErrorName(name)
        let text = message.utf8.contains(0) ? String(message.prefix { $0 != "\0" }) : message
        guard let m = dbus_message_new_error(pointer, name, text) else {
            throw .outOfMemory(function: "dbus_message_new_error")
        }
        return DBusMessage(adopting: m)
    }

    // MARK: Header

    var type: Int32 { dbus_message_get_type(pointer) }
    var isMethodCall: Bool { type == DBUS_MESSAGE_TYPE_METHOD_CALL }
    var isSignal: Bool { type == DBUS_MESSAGE_TYPE_SIGNAL }
    var isError: Bool { type == DBUS_MESSAGE_TYPE_ERROR }

    var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(pointer).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    var path: DBusObjectPath? {
        dbus_message_get_path(pointer).map { DBusObjectPath(unchecked: String(cString: $0)) }
    }
    /// The body's signature (`dbus_message_get_signature`), e.g. `sa{sv}`.
    var signature: String { String(cString: dbus_message_get_signature(pointer)) }
    var expectsReply: Bool { dbus_message_get_no_reply(pointer) == 0 }

    /// `dbus_message_set_no_reply`: the peer should not answer.
    func setNoReply() { dbus_message_set_no_reply(pointer, 1) }

    // MARK: Wire bytes

    /// The message in wire format (`dbus_message_marshal`). Unix fds are not part of the bytes. A message that was
    /// never sent gets serial 1 first (`dbus_message_set_serial`), since `dbus_message_demarshal` refuses serial 0.
    func marshal() throws(DBusError) -> [UInt8] {
        if dbus_message_get_serial(pointer) == 0 { dbus_message_set_serial(pointer, 1) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(pointer, &buffer, &length) != 0, let buffer else {
            throw .outOfMemory(function: "dbus_message_marshal")
        }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Parses and validates wire bytes (`dbus_message_demarshal`); cut or corrupt bytes throw
    /// ``DBusError/malformed(path:reason:)`` with libdbus' reason.
    static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> DBusMessage {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                dbus_message_demarshal(chars.baseAddress, Int32(chars.count), &error)
            }
        }
        guard let message else {
            throw .malformed(path: [], reason: "cannot demarshal \(bytes.count) bytes: \(error.text)")
        }
        return DBusMessage(adopting: message)
    }
}

extension CDBus.DBusError {
    /// "name: message" of a set libdbus error, for messages.
    var text: String {
        let name = self.name.map { String(cString: $0) } ?? "unknown error"
        let message = self.message.map { String(cString: $0) } ?? ""
        return message.isEmpty ? name : "\(name): \(message)"
    }
}
