/// A Swift type that can be written as a ``DBusValue``: the basic types, arrays, dictionaries, ``DBusVardict``.
///
/// `[String: DBusValue]` encodes as `a{sv}` because a bare ``DBusValue`` stands for "any value" and is written
/// as a variant; ``DBusVardict`` does the same with sorted keys.
public protocol DBusEncodable: Sendable {
    /// The D-Bus type written (used for the element type of empty arrays and dictionaries).
    static var dbusType: DBusType { get }
    /// The value to put on the wire.
    var dbusValue: DBusValue { get }
}

extension UInt8: DBusEncodable { public var dbusValue: DBusValue { .byte(self) } }
extension Bool: DBusEncodable { public var dbusValue: DBusValue { .bool(self) } }
extension Int16: DBusEncodable { public var dbusValue: DBusValue { .int16(self) } }
extension UInt16: DBusEncodable { public var dbusValue: DBusValue { .uint16(self) } }
extension Int32: DBusEncodable { public var dbusValue: DBusValue { .int32(self) } }
extension UInt32: DBusEncodable { public var dbusValue: DBusValue { .uint32(self) } }
extension Int64: DBusEncodable { public var dbusValue: DBusValue { .int64(self) } }
extension UInt64: DBusEncodable { public var dbusValue: DBusValue { .uint64(self) } }
extension Double: DBusEncodable { public var dbusValue: DBusValue { .double(self) } }
extension String: DBusEncodable { public var dbusValue: DBusValue { .string(self) } }
extension DBusObjectPath: DBusEncodable { public var dbusValue: DBusValue { .objectPath(self) } }
extension DBusSignature: DBusEncodable { public var dbusValue: DBusValue { .signature(self) } }
extension OwnedFileDescriptor: DBusEncodable { public var dbusValue: DBusValue { .unixFD(self) } }

extension DBusValue: DBusEncodable {
    /// The value wrapped in a variant (a `DBusValue` as a Swift element type means `v`).
    public var dbusValue: DBusValue { .variant(self) }
}

extension Array: DBusEncodable where Element: DBusEncodable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    public var dbusValue: DBusValue { .array(element: Element.dbusType, map(\.dbusValue)) }
}

extension Dictionary: DBusEncodable where Key: DBusEncodable, Value: DBusEncodable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }

    /// `a{kv}`, entries sorted by the text of their key so the wire bytes are reproducible.
    public var dbusValue: DBusValue {
        let entries = map { DBusValue.Entry($0.key.dbusValue, $0.value.dbusValue) }
            .sorted { $0.key.keyDescription < $1.key.keyDescription }
        return .dictionary(key: Key.dbusType, value: Value.dbusType, entries)
    }
}
