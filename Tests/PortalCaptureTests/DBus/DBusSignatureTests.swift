import Glibc
import Testing
@testable import PortalCapture

@Suite("D-Bus signatures, names and outgoing values are checked before libdbus sees them")
struct DBusSignatureTests {
    @Test("valid signatures parse and print back unchanged", arguments: [
        "", "y", "bnqiuxtdsogh", "v", "as", "a{sv}", "a(ua{sv})", "(ii)", "aav", "a{oa{sv}}", "sa{sv}u", "a{ya(yv)}",
        String(repeating: "a", count: 32) + "i",
    ])
    func validSignature(text: String) throws {
        let signature = try DBusSignature(text)
        #expect(signature.rawValue == text)
        #expect(signature.types.map(\.signature).joined() == text)
    }

    @Test("invalid signatures are rejected with a reason", arguments: [
        ("a", "no element type"), ("a{sv", "closed by '}'"), ("{sv}", "outside an array"), ("a{vs}", "not a basic type"),
        ("a{s}", "no value type"), ("a{sss}", "exactly a key and a value"), ("()", "empty struct"), ("(i", "unclosed"),
        ("i)", "unbalanced"), ("z", "unknown type code"), ("a{(i)s}", "not a basic type"),
        (String(repeating: "a", count: 33) + "i", "32 nested arrays"),
        (String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33), "32 nested structs"),
        (String(repeating: "i", count: 256), "255 characters"),
    ])
    func invalidSignature(text: String, reason: String) {
        #expect { _ = try DBusSignature(text) } throws: { error in
            guard case .invalidArgument(let message)? = error as? DBusError else { return false }
            return message.contains(reason)
        }
    }

    @Test("a single complete type must be exactly one type")
    func singleCompleteType() throws {
        #expect(try DBusType(parsing: "a{sv}") == .vardict)
        #expect(throws: DBusError.self) { _ = try DBusType(parsing: "ss") }
        #expect(throws: DBusError.self) { _ = try DBusType(parsing: "") }
    }

    @Test("object paths follow the specification", arguments: [
        ("/", true), ("/org/freedesktop/portal/desktop", true), ("/a/b_c/D1", true),
        ("", false), ("a", false), ("/a/", false), ("//", false), ("/a//b", false), ("/a-b", false), ("/a\0b", false),
    ])
    func objectPaths(text: String, valid: Bool) {
        #expect(DBusObjectPath.isValid(text) == valid)
        #expect(((try? DBusObjectPath(text)) != nil) == valid)
    }

    @Test("paths below a prefix are recognised element by element")
    func pathPrefixes() throws {
        let base = try DBusObjectPath("/org/freedesktop/portal/desktop")
        #expect(try base.appending("request").isDescendant(ofOrEqualTo: base))
        #expect(base.isDescendant(ofOrEqualTo: base))
        #expect(try !DBusObjectPath("/org/freedesktop/portal/desktopx").isDescendant(ofOrEqualTo: base))
        #expect(base.isDescendant(ofOrEqualTo: .root))
        #expect(throws: DBusError.self) { _ = try base.appending("1.2") }
    }

    @Test("bus, interface, member and error names are validated", arguments: [
        ("org.freedesktop.portal.Desktop", true), (":1.42", true), ("org", false), ("org..x", false), ("", false),
    ])
    func busNames(name: String, valid: Bool) {
        #expect(((try? DBusNames.validateBusName(name)) != nil) == valid)
    }

    @Test("invalid header names are refused before a message is built")
    func invalidHeaderNames() throws {
        let path = DBusObjectPath.root
        #expect(throws: DBusError.self) { _ = try DBusMessage.methodCall(destination: nil, path: path, interface: "noDots", member: "M") }
        #expect(throws: DBusError.self) { _ = try DBusMessage.methodCall(destination: nil, path: path, interface: nil, member: "1M") }
        #expect(throws: DBusError.self) { _ = try DBusMessage.methodCall(destination: "bad..name", path: path, interface: nil, member: "M") }
        #expect(throws: DBusError.self) { _ = try DBusMessage.signal(path: path, interface: "a.b", member: "Bad-Member") }
    }

    static func deepArray(_ depth: Int) -> DBusValue {
        var value = DBusValue.int32(1)
        for _ in 0..<depth { value = .array(element: value.type, [value]) }
        return value
    }

    static func deepVariant(_ depth: Int) -> DBusValue {
        var value = DBusValue.int32(1)
        for _ in 0..<depth { value = .variant(value) }
        return value
    }

    @Test("inconsistent outgoing values are refused with their path", arguments: [
        (DBusValue.array(element: .uint32, [.uint32(1), .string("x")]), [DBusValuePath.Component.index(1)], "array of u"),
        (.string("a\0b"), [], "NUL"),
        (.structure([]), [], "empty struct"),
        (.dictionary(key: .variant, value: .string, []), [], "not a basic type"),
        (.dictionary(key: .string, value: .variant, [.init(.string("k"), .string("not a variant"))]), [.key("k")],
         "in a dictionary of {sv}"),
        (.vardict(["k": .structure([.uint32(1), .array(element: .byte, [.int16(1)])])]),
         [.key("k"), .variant, .field(1), .index(0)], "array of y"),
        (deepArray(33), [], "32 nested arrays"),
        (deepVariant(70), [.variant, .variant, .variant], "deeper than 64"),
    ])
    func invalidOutgoingValue(value: DBusValue, path: [DBusValuePath.Component], reason: String) throws {
        let message = try MessageRoundTrip.newMessage()
        #expect { try message.append([.uint32(0), value]) } throws: { error in
            guard case .invalidValue(let p, let r)? = error as? DBusError else { return false }
            return p.components.prefix(path.count + 1) == [.argument(1)] + path && r.contains(reason)
        }
    }

    @Test("a closed file descriptor cannot be sent")
    func closedDescriptor() throws {
        let fd = try OwnedFileDescriptor(duplicating: 0)
        let taken = fd.take()
        #expect(taken != nil)
        #expect(fd.take() == nil)
        if let taken { close(taken) }
        #expect(throws: DBusError.self) { try MessageRoundTrip.newMessage().append([.unixFD(fd)]) }
    }

    @Test("the deepest legal nesting still encodes")
    func deepestLegalNesting() throws {
        let value = Self.deepArray(32)
        #expect(try MessageRoundTrip.throughBytes([value]) == [value])
    }
}
