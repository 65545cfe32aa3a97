import Glibc
import Testing
@testable import PortalCapture

@Suite("D-Bus values round trip through real libdbus messages")
struct DBusValueRoundTripTests {
    static let path = try! DBusObjectPath("/org/freedesktop/portal/desktop/session/1_42/t")

    /// One sample of every basic type, with its edge values.
    static let basics: [DBusValue] = [
        .byte(0), .byte(255), .bool(true), .bool(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(-1), .uint32(.max),
        .int64(.min), .uint64(.max), .double(-0.5), .double(.infinity), .double(1e-300),
        .string(""), .string("héllo ✓ 🎥"), .objectPath(.root), .objectPath(path),
        .signature(try! DBusSignature("")), .signature(try! DBusSignature("a{sv}(ua{sv})")),
    ]

    /// Containers: empty ones (which must keep their element type), nesting, and the portal's real shapes.
    static let containers: [DBusValue] = [
        .variant(.uint32(7)),
        .variant(.variant(.string("nested"))),
        .array(element: .string, []),
        .array(element: .vardict, []),
        .array(element: .structure([.int32, .int32]), []),
        .array(element: .array(.variant), [.array(element: .variant, []), .array(element: .variant, [.variant(.bool(true))])]),
        .dictionary(key: .string, value: .variant, []),
        .dictionary(key: .uint32, value: .variant, [.init(.uint32(1), .variant(.double(2.5)))]),
        .dictionary(key: .objectPath, value: .array(.string), [.init(.objectPath(path), .stringArray(["a", "b"]))]),
        .dictionary(key: .string, value: .vardict,
                    [.init(.string("outer"), .vardict(["inner": .int64(-9), "list": .stringArray([])]))]),
        .structure([.byte(1)]),
        .structure([.uint32(5), .structure([.int32(1), .structure([.string("deep")])])]),
        .vardict(["handle_token": .string("pwrecord1"), "types": .uint32(3), "multiple": .bool(true),
                  "restore_data": .variant(.structure([.string("GNOME"), .uint32(1), .variant(.string("x"))]))]),
        // The body of org.freedesktop.portal.Request.Response after ScreenCast.Start.
        .vardict(["streams": .array(element: .structure([.uint32, .vardict]), [
            .structure([.uint32(42), .vardict(["position": .structure([.int32(0), .int32(0)]),
                                               "size": .structure([.int32(1280), .int32(720)]),
                                               "source_type": .uint32(1), "id": .string("0")])]),
        ]), "restore_token": .string("c0ffee")]),
    ]

    @Test("every basic type keeps its value through a message", arguments: basics)
    func basicTypeRoundTrips(value: DBusValue) throws {
        #expect(try MessageRoundTrip.throughMessage([value]) == [value])
    }

    @Test("every basic type keeps its value through marshalled bytes", arguments: basics)
    func basicTypeRoundTripsThroughBytes(value: DBusValue) throws {
        #expect(try MessageRoundTrip.throughBytes([value]) == [value])
    }

    @Test("containers and nested combinations keep value and signature", arguments: containers)
    func containerRoundTrips(value: DBusValue) throws {
        let decoded = try MessageRoundTrip.throughMessage([value])
        #expect(decoded == [value])
        #expect(decoded.first?.signature == value.signature)
    }

    @Test("containers and nested combinations survive marshal and demarshal", arguments: containers)
    func containerRoundTripsThroughBytes(value: DBusValue) throws {
        #expect(try MessageRoundTrip.throughBytes([value]) == [value])
    }

    @Test("a body of several arguments keeps order and signature")
    func multipleArguments() throws {
        let body = Self.basics + Self.containers
        let decoded = try MessageRoundTrip.throughBytes(body)
        #expect(decoded == body)
        #expect(decoded.signature == body.map(\.signature).joined())
    }

    @Test("an empty body decodes to no arguments")
    func emptyBody() throws {
        #expect(try MessageRoundTrip.throughBytes([]) == [])
    }

    @Test("NaN survives as NaN")
    func nanRoundTrips() throws {
        let decoded = try MessageRoundTrip.throughMessage([.double(.nan)])
        guard case .double(let d) = decoded.first else { Issue.record("got \(decoded)"); return }
        #expect(d.isNaN)
    }

    @Test("a unix fd comes back as a new descriptor of the same pipe, owned by the decoded value")
    func unixFDRoundTrips() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let reader = OwnedFileDescriptor(taking: ends[0])
        let writer = OwnedFileDescriptor(taking: ends[1])
        let decoded = try MessageRoundTrip.throughMessage([.unixFD(writer), .variant(.unixFD(writer))])
        guard case .unixFD(let copy) = decoded.first, case .variant(.unixFD(let copy2)) = decoded.last else {
            Issue.record("got \(decoded)"); return
        }
        #expect(copy.rawValue != writer.rawValue && copy2.rawValue != writer.rawValue)
        #expect(copy == writer)  // same file (st_dev, st_ino)
        writer.close()
        copy2.close()
        var byte: UInt8 = 0x5A
        #expect(write(copy.rawValue!, &byte, 1) == 1)
        var got: UInt8 = 0
        #expect(read(reader.rawValue!, &got, 1) == 1)
        #expect(got == 0x5A)
    }

    @Test("marshalled bytes carry no fds, so demarshalling a message that had one fails cleanly")
    func unixFDLostInBytes() throws {
        let fd = try OwnedFileDescriptor(duplicating: 0)
        let bytes = try MessageRoundTrip.bytes(of: [.string("x"), .unixFD(fd)])
        #expect { _ = try DBusMessage.demarshal(bytes) } throws: { error in
            guard case DBusError.malformed(_, let reason)? = error as? DBusError else { return false }
            return reason.contains("Unix file descriptor missing")
        }
    }

    @Test("Swift arrays, dictionaries and vardict literals encode and decode as their D-Bus types")
    func swiftTypesRoundTrip() throws {
        let options: DBusVardict = ["handle_token": "t1", "types": UInt32(3), "multiple": true,
                                    "nested": DBusVardict(["x": .int32(1)]), "raw": DBusValue.uint64(9)]
        let map: [String: [UInt32]] = ["a": [1, 2], "b": []]
        let empty: [String] = []
        let decoded = try MessageRoundTrip.throughBytes([options.dbusValue, map.dbusValue, empty.dbusValue])
        #expect(decoded.signature == "a{sv}a{sau}as")
        #expect(try decoded.argument(0, as: DBusVardict.self) == options)
        #expect(try decoded.argument(1, as: [String: [UInt32]].self) == map)
        #expect(try decoded.argument(2, as: [String].self) == [])
        #expect(try decoded.argument(0, as: DBusVardict.self).value("nested", as: DBusVardict.self).value("x", as: Int32.self) == 1)
        #expect(try decoded.argument(0, as: DBusVardict.self).requireUInt32("types") == 3)
        #expect(try decoded.argument(0, as: DBusVardict.self).valueIfPresent("absent", as: String.self) == nil)
    }

    @Test("a vardict is written with sorted keys, so equal dictionaries give equal bytes")
    func vardictBytesAreReproducible() throws {
        var a = DBusVardict()
        var b = DBusVardict()
        for key in ["z", "a", "m", "b"] { a.set(key, key) }
        for key in ["b", "m", "a", "z"] { b.set(key, key) }
        #expect(try MessageRoundTrip.bytes(of: [a.dbusValue]) == MessageRoundTrip.bytes(of: [b.dbusValue]))
    }
}
