import CDBus

/// Syntax checks for names that go into message headers, with libdbus' own validators (`dbus_validate_bus_name`,
/// `dbus_validate_interface`, `dbus_validate_member`, `dbus_validate_error_name`). libdbus aborts the process
/// when handed an invalid name, so every name is checked here first.
public enum DBusNames {
    public static func validateBusName(_ name: String) throws(DBusError) {
        try check(name, "bus name", dbus_validate_bus_name)
    }

    public static func validateInterface(_ name: String) throws(DBusError) {
        try check(name, "interface name", dbus_validate_interface)
    }

    public static func validateMember(_ name: String) throws(DBusError) {
        try check(name, "member name", dbus_validate_member)
    }

    public static func validateErrorName(_ name: String) throws(DBusError) {
        try check(name, "error name", dbus_validate_error_name)
    }

    private static func check(_ name: String, _ what: String,
                              _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t)
        throws(DBusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard !name.utf8.contains(0), validate(name, &error) != 0 else {
            let reason = name.utf8.contains(0) ? "contains a NUL character" : error.text
            throw .invalidArgument("'\(name)' is not a valid D-Bus \(what): \(reason)")
        }
    }
}
