import CDBus

/// A validated D-Bus object path: the value of an `o` (`DBUS_TYPE_OBJECT_PATH`) argument and a message's
/// `PATH` header, e.g. `/org/freedesktop/portal/desktop`. Validated by libdbus' `dbus_validate_path`.
public struct DBusObjectPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DBusError/invalidArgument(_:)``.
    public init(_ rawValue: String) throws(DBusError) {
        guard DBusObjectPath.isValid(rawValue) else {
            throw .invalidArgument("'\(rawValue)' is not a valid object path (expected /a/b_c with [A-Za-z0-9_] elements)")
        }
        self.rawValue = rawValue
    }

    /// For paths libdbus already validated (read from a message).
    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The root path `/`.
    public static let root = DBusObjectPath(unchecked: "/")

    /// True when `text` is a valid object path (`dbus_validate_path`).
    public static func isValid(_ text: String) -> Bool {
        guard !text.utf8.contains(0) else { return false }
        return dbus_validate_path(text, nil) != 0
    }

    /// This path with one more element, e.g. `/a` + `b` = `/a/b`. Throws when `element` is not `[A-Za-z0-9_]+`.
    public func appending(_ element: String) throws(DBusError) -> DBusObjectPath {
        try DBusObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` is `prefix` or lies below it (`/a/b` is under `/a` and `/`, but `/ab` is not under `/a`).
    public func isDescendant(ofOrEqualTo prefix: DBusObjectPath) -> Bool {
        prefix.rawValue == "/" || rawValue == prefix.rawValue || rawValue.hasPrefix(prefix.rawValue + "/")
    }

    public var description: String { rawValue }
    public static func < (lhs: DBusObjectPath, rhs: DBusObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }
}
