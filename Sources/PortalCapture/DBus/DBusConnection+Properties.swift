/// Reading another service's properties through `org.freedesktop.DBus.Properties`.
extension DBusConnection {
    /// One property (`org.freedesktop.DBus.Properties.Get`), unwrapped from its variant, e.g. a portal's
    /// `version`: `try await bus.property(destination: ..., path: ..., interface: "org.freedesktop.portal.ScreenCast",
    /// name: "version").decode(as: UInt32.self)`. A missing property comes back as
    /// ``DBusError/remote(name:message:)`` (`org.freedesktop.DBus.Error.InvalidArgs` or `UnknownProperty`).
    public func property(destination: String, path: DBusObjectPath, interface: String, name: String,
                         timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError) -> DBusValue {
        let reply = try await call(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties",
                                   member: "Get", body: [.string(interface), .string(name)], timeout: timeout)
        try reply.requireSignature("v")
        return try reply.argument(0, as: DBusValue.self)
    }

    /// All properties of `interface` (`org.freedesktop.DBus.Properties.GetAll`).
    public func allProperties(destination: String, path: DBusObjectPath, interface: String,
                              timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError) -> DBusVardict {
        let reply = try await call(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties",
                                   member: "GetAll", body: [.string(interface)], timeout: timeout)
        return try reply.argument(0, as: DBusVardict.self)
    }
}
