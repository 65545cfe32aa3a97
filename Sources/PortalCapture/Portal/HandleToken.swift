/// A `handle_token` / `session_handle_token`: the caller-chosen last element of a request or session
/// object path. The portal spec requires a valid object-path element: ASCII letters, digits and `_`.
public struct HandleToken: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    /// Fails for an empty string or any character outside `[A-Za-z0-9_]`.
    public init?(_ value: String) {
        guard !value.isEmpty, value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }) else {
            return nil
        }
        self.value = value
    }

    /// A fresh random token, `pwrecord_` followed by 16 hex digits.
    public static func random() -> HandleToken {
        var rng = SystemRandomNumberGenerator()
        let n = rng.next() as UInt64
        let hex = String(n, radix: 16)
        return HandleToken("pwrecord_" + String(repeating: "0", count: 16 - hex.count) + hex)!
    }

    public var description: String { value }
}
