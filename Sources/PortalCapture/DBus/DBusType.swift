/// One complete D-Bus type, as written in a signature: `u`, `as`, `a{sv}`, `(ua{sv})`.
///
/// Type codes are the `DBUS_TYPE_*` constants of libdbus (`CDBUS_TYPE_*` in the shim header). A dictionary is
/// always an array of dict entries (`a{kv}`); a dict entry never appears on its own.
public indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte           // y
    case bool           // b, marshalled as a 4-byte dbus_bool_t
    case int16          // n
    case uint16         // q
    case int32          // i
    case uint32         // u
    case int64          // x
    case uint64         // t
    case double         // d
    case string         // s
    case objectPath     // o
    case signature      // g
    case unixFD         // h
    case variant        // v
    /// `a` followed by the element type.
    case array(DBusType)
    /// `a{kv}`: an array of dict entries; the key must be a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(...)`: one or more fields.
    case structure([DBusType])

    /// `a{sv}`, the portal's options and results dictionary ("vardict").
    public static let vardict = DBusType.dictionary(key: .string, value: .variant)

    /// The signature text of this type, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    public var description: String { signature }

    /// Basic types can be dictionary keys and are appended with `dbus_message_iter_append_basic`.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// Parses exactly one complete type. Throws ``DBusError/invalidArgument(_:)`` naming the problem, for empty
    /// input, trailing characters, unknown codes, unbalanced brackets, a non-basic dictionary key, an empty struct,
    /// more than 32 nested arrays or structs, or more than 255 characters.
    public init(parsing text: String) throws(DBusError) {
        let types = try DBusType.parseList(text)
        guard types.count == 1 else {
            throw .invalidArgument("'\(text)' is \(types.count) complete types, expected exactly one")
        }
        self = types[0]
    }

    /// Parses a signature: zero or more complete types (a message body's signature, e.g. `sa{sv}`).
    public static func parseList(_ text: String) throws(DBusError) -> [DBusType] {
        var parser = SignatureParser(text: text)
        return try parser.parseAll()
    }
}

/// A recursive-descent parser of D-Bus signatures with the limits of the specification.
private struct SignatureParser {
    let text: String
    let bytes: [UInt8]
    var position = 0
    var arrayDepth = 0
    var structDepth = 0

    init(text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    mutating func parseAll() throws(DBusError) -> [DBusType] {
        guard bytes.count <= 255 else { throw fail("longer than 255 characters") }
        var result: [DBusType] = []
        while position < bytes.count { result.append(try parseOne()) }
        return result
    }

    func fail(_ reason: String) -> DBusError {
        .invalidArgument("signature '\(text)': \(reason)")
    }

    mutating func parseOne() throws(DBusError) -> DBusType {
        guard position < bytes.count else { throw fail("ends inside a container") }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .bool
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            arrayDepth += 1
            defer { arrayDepth -= 1 }
            guard arrayDepth <= 32 else { throw fail("more than 32 nested arrays") }
            guard position < bytes.count else { throw fail("'a' at the end has no element type") }
            if bytes[position] == UInt8(ascii: "{") {
                position += 1
                structDepth += 1  // libdbus counts dict entries as structs
                defer { structDepth -= 1 }
                guard structDepth <= 32 else { throw fail("more than 32 nested structs or dict entries") }
                let key = try parseOne()
                guard key.isBasic else { throw fail("dictionary key '\(key)' is not a basic type") }
                guard position < bytes.count, bytes[position] != UInt8(ascii: "}") else {
                    throw fail("dictionary entry has no value type")
                }
                let value = try parseOne()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                    throw fail("dictionary entry must hold exactly a key and a value, closed by '}'")
                }
                position += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne())
        case UInt8(ascii: "("):
            structDepth += 1
            defer { structDepth -= 1 }
            guard structDepth <= 32 else { throw fail("more than 32 nested structs") }
            var fields: [DBusType] = []
            while true {
                guard position < bytes.count else { throw fail("unclosed '('") }
                if bytes[position] == UInt8(ascii: ")") { position += 1; break }
                fields.append(try parseOne())
            }
            guard !fields.isEmpty else { throw fail("empty struct '()'") }
            return .structure(fields)
        case UInt8(ascii: "{"):
            throw fail("dictionary entry '{' outside an array")
        case UInt8(ascii: ")"), UInt8(ascii: "}"):
            throw fail("unbalanced '\(Character(Unicode.Scalar(code)))'")
        default:
            throw fail("unknown type code '\(Character(Unicode.Scalar(code)))' at \(position - 1)")
        }
    }
}
