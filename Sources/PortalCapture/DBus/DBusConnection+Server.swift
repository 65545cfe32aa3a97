import CDBus

/// Exported objects and signal emission, for services such as the test portal backend.
///
/// Incoming method calls are routed by the connection's filter (`dbus_connection_add_filter`): the object exported
/// at the call's path, else the fallback with the longest prefix of it. Unknown paths, interfaces and methods get
/// `org.freedesktop.DBus.Error.UnknownObject` / `UnknownInterface` / `UnknownMethod`. Every exported object also
/// answers `org.freedesktop.DBus.Properties` (`Get`, `GetAll`; `Set` gives `PropertyReadOnly`) and
/// `org.freedesktop.DBus.Introspectable.Introspect`; libdbus answers `org.freedesktop.DBus.Peer`.
extension DBusConnection {
    /// Exports `interfaces` at exactly `path`. Throws ``DBusError/invalidArgument(_:)`` when something is already
    /// exported there or a name or signature is invalid.
    ///
    /// Handlers are kept until ``unexport(_:)`` or ``DBusConnection/close()``: a handler that captures this
    /// connection keeps it alive until then, so close a serving connection explicitly.
    public func export(_ interfaces: [DBusInterface], at path: DBusObjectPath) throws(DBusError) {
        try register(interfaces, at: path, fallback: false)
    }

    /// Exports `interfaces` for `path` and every path below it that has no object of its own, e.g. the request and
    /// session objects a portal backend is handed at dynamic paths under `/org/freedesktop/portal/desktop`.
    /// ``DBusMethodCall/path`` tells the handler which path was called.
    public func exportFallback(_ interfaces: [DBusInterface], under path: DBusObjectPath) throws(DBusError) {
        try register(interfaces, at: path, fallback: true)
    }

    /// Removes what ``export(_:at:)`` and ``exportFallback(_:under:)`` registered at `path`. Calls already being
    /// handled can still be answered.
    public func unexport(_ path: DBusObjectPath) {
        let engine = self.engine
        engine.onQueue {
            engine.objects[path] = nil
            engine.fallbacks[path] = nil
        }
    }

    private func register(_ interfaces: [DBusInterface], at path: DBusObjectPath, fallback: Bool) throws(DBusError) {
        var names: Set<String> = []
        for interface in interfaces {
            try interface.validate()
            guard names.insert(interface.name).inserted else {
                throw .invalidArgument("interface \(interface.name) is given twice for \(path)")
            }
        }
        let engine = self.engine
        let object = ExportedObject(interfaces)
        let result: DBusError? = engine.onQueue {
            guard !engine.closed.load(ordering: .acquiring) else { return .disconnected }
            if fallback {
                guard engine.fallbacks[path] == nil else { return .invalidArgument("a fallback is already exported under \(path)") }
                engine.fallbacks[path] = object
            } else {
                guard engine.objects[path] == nil else { return .invalidArgument("an object is already exported at \(path)") }
                engine.objects[path] = object
            }
            return nil
        }
        if let result { throw result }
    }

    /// Emits a signal (`dbus_message_new_signal` + `dbus_connection_send`); never blocks. With `destination`, it is
    /// a unicast signal to that peer.
    public func emitSignal(path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = [],
                           destination: String? = nil) throws(DBusError) {
        let message = try DBusMessage.signal(path: path, interface: interface, member: member)
        if let destination {
            try DBusNames.validateBusName(destination)
            guard dbus_message_set_destination(message.pointer, destination) != 0 else {
                throw .outOfMemory(function: "dbus_message_set_destination")
            }
        }
        try message.append(body)
        try engine.send(message)
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`.
    public func emitPropertiesChanged(path: DBusObjectPath, interface: String, changed: DBusVardict,
                                      invalidated: [String] = []) throws(DBusError) {
        try emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                       body: [.string(interface), changed.dbusValue, .stringArray(invalidated)])
    }
}
