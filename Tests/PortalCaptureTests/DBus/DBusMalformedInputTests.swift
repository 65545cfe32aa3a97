import Testing
@testable import PortalCapture

/// A portal stream as the portal client will read it: `(ua{sv})`.
private struct PortalStream: DBusDecodable, Equatable {
    static let dbusType = DBusType.structure([.uint32, .vardict])
    let node: UInt32
    let properties: DBusVardict

    init(dbusValue: DBusValue) throws(DBusError) {
        node = try dbusValue.field(0, as: UInt32.self)
        properties = try dbusValue.field(1, as: DBusVardict.self)
    }
}

/// The results of a ScreenCast.Start Response, read eagerly as the portal client will.
private struct StartResults: DBusDecodable {
    static let dbusType = DBusType.vardict
    let streams: [PortalStream]

    init(dbusValue: DBusValue) throws(DBusError) {
        streams = try DBusVardict(dbusValue: dbusValue).value("streams", as: [PortalStream].self)
    }
}

@Suite("Malformed D-Bus input gives clear errors, never a crash")
struct DBusMalformedInputTests {
    /// `malformed` with this exact path and a reason containing `text`.
    private static func isMalformed(_ error: any Error, at path: DBusValuePath, _ text: String) -> Bool {
        guard case .malformed(let p, let reason)? = error as? DBusError else { return false }
        return p == path && reason.contains(text)
    }

    private static func response(streams: DBusValue) throws -> [DBusValue] {
        try MessageRoundTrip.throughBytes([.uint32(0), .vardict(["streams": streams])])
    }

    @Test("a variant holding the wrong type names the key and both types")
    func wrongTypeInVariant() throws {
        let body = try Self.response(streams: .string("oops"))
        let results = try body.argument(1, as: DBusVardict.self)
        do {
            _ = try results.value("streams", as: [PortalStream].self)
            Issue.record("expected an error")
        } catch {
            #expect(error == .malformed(path: [.key("streams")], reason: "expected a(ua{sv}), got s"))
            #expect(error.description.hasPrefix("key 'streams': expected a(ua{sv}), got s"))
        }
    }

    @Test("a wrong field deep inside a reply is reported with its full path")
    func deepPath() throws {
        let body = try Self.response(streams: .array(element: .structure([.uint32, .uint32]),
                                                     [.structure([.uint32(1), .uint32(2)])]))
        #expect { _ = try body.argument(1, as: StartResults.self) } throws: { error in
            Self.isMalformed(error, at: [.argument(1), .key("streams"), .index(0), .field(1)], "expected a{sv}, got u")
        }
        do { _ = try body.argument(1, as: StartResults.self) } catch {
            #expect(error.description.hasPrefix("arg 1 / key 'streams' / [0] / field 1: expected a{sv}, got u"))
        }
    }

    @Test("a missing key names the key and the keys that are present")
    func missingKey() throws {
        let results = try Self.response(streams: .array(element: .string, [])).argument(1, as: DBusVardict.self)
        #expect { _ = try results.requireUInt32("version") } throws: { error in
            Self.isMalformed(error, at: [.key("version")], "missing (present: streams)")
        }
        #expect { _ = try results.value("version", as: UInt32.self) } throws: { error in
            (error as? DBusError)?.description.contains("key 'version': missing") == true
        }
    }

    @Test("a missing argument and a missing struct field are errors, not traps")
    func missingArgumentAndField() throws {
        let body = try MessageRoundTrip.throughMessage([.structure([.uint32(1)])])
        #expect { _ = try body.argument(3, as: String.self) } throws: { error in
            Self.isMalformed(error, at: [.argument(3)], "the body '(u)' has 1 arguments")
        }
        #expect { _ = try body[0].field(1, as: UInt32.self) } throws: { error in
            Self.isMalformed(error, at: [.field(1)], "has 1 fields")
        }
        #expect { _ = try DBusValue.string("x").field(0, as: UInt32.self) } throws: { error in
            Self.isMalformed(error, at: [], "expected a struct, got s")
        }
    }

    @Test("a body of the wrong signature is rejected with both signatures")
    func wrongBodySignature() throws {
        let body = try MessageRoundTrip.throughMessage([.string("/not/an/o")])
        #expect { try body.requireSignature("o") } throws: { error in
            Self.isMalformed(error, at: [], "expected a body of signature 'o', got 's'")
        }
        #expect { _ = try body.argument(0, as: DBusObjectPath.self) } throws: { error in
            Self.isMalformed(error, at: [.argument(0)], "expected o, got s")
        }
    }

    static let mismatches: [(DBusValue, String)] = [
        (.int32(-1), "expected u, got i"),
        (.uint64(1), "expected u, got t"),
        (.array(element: .uint32, [.uint32(1)]), "expected u, got au"),
        (.vardict([:]), "expected u, got a{sv}"),
        (.structure([.uint32(1)]), "expected u, got (u)"),
    ]

    @Test("decoding a value as another type says expected and actual", arguments: mismatches)
    func typeMismatch(value: DBusValue, expected: String) throws {
        let decoded = try MessageRoundTrip.throughMessage([.variant(value)])
        #expect { _ = try decoded.argument(0, as: UInt32.self) } throws: { error in
            Self.isMalformed(error, at: [.argument(0)], expected)
        }
    }

    @Test("an array element of the wrong type is reported at its index")
    func wrongArrayElement() throws {
        let decoded = try MessageRoundTrip.throughMessage([.array(element: .variant, [.variant(.uint32(1)), .variant(.string("2"))])])
        #expect { _ = try decoded.argument(0, as: [UInt32].self) } throws: { error in
            Self.isMalformed(error, at: [.argument(0), .index(1)], "expected u, got s")
        }
    }

    @Test("every truncation of a marshalled message fails to demarshal cleanly")
    func truncatedBytes() throws {
        let bytes = try MessageRoundTrip.bytes(of: [.uint32(0), .vardict(["streams": .stringArray(["a", "b"])])])
        for length in 0..<bytes.count {
            #expect(throws: DBusError.self, "length \(length) of \(bytes.count)") {
                _ = try DBusMessage.demarshal(Array(bytes.prefix(length)))
            }
        }
    }

    @Test("a body cut short under a header that agrees with it (length updated, signature kept) is refused")
    func truncatedBodyWithConsistentHeader() throws {
        let values: [DBusValue] = [.uint32(0), .vardict(["streams": .stringArray(["a", "b"])])]
        let bytes = try MessageRoundTrip.bytes(of: values)
        // Header: endianness, type, flags, version, u32 body length at 4, serial at 8, the header fields'
        // array length at 12, the fields, padding to 8; the body follows.
        #expect(bytes[0] == UInt8(ascii: "l"), "little-endian, as libdbus marshals on this machine")
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let bodyLength = u32(4)
        let bodyStart = (16 + u32(12) + 7) / 8 * 8
        try #require(bodyStart + bodyLength == bytes.count, "header \(bodyStart) + body \(bodyLength) != \(bytes.count)")
        func cut(_ drop: Int) -> [UInt8] {
            var copy = Array(bytes.prefix(bytes.count - drop))
            for i in 0..<4 { copy[4 + i] = UInt8(truncatingIfNeeded: (bodyLength - drop) >> (8 * i)) }
            return copy
        }
        // The rewriting itself is sound: nothing dropped, the message still reads back.
        #expect(try DBusMessage.demarshal(cut(0)).arguments() == values)
        for drop in 1...bodyLength {
            #expect("\(drop) of \(bodyLength) body bytes dropped") {
                _ = try DBusMessage.demarshal(cut(drop)).arguments()
            } throws: { error in
                Self.isMalformed(error, at: [], "cannot demarshal")
            }
        }
    }

    @Test("corrupt bytes fail to demarshal with libdbus' reason", arguments: [
        "invalid UTF-8", "invalid boolean", "string length beyond the body",
    ])
    func corruptBytes(kind: String) throws {
        var bytes: [UInt8]
        switch kind {
        case "invalid UTF-8":
            bytes = try MessageRoundTrip.bytes(of: [.string("abc")])
            bytes[bytes.count - 3] = 0xFF
        case "invalid boolean":
            bytes = try MessageRoundTrip.bytes(of: [.bool(true)])
            bytes[bytes.count - 4] = 2  // little-endian dbus_bool_t
        default:
            bytes = try MessageRoundTrip.bytes(of: [.string("abc")])
            bytes[bytes.count - 8] = 200  // the string's length field
        }
        #expect { _ = try DBusMessage.demarshal(bytes) } throws: { error in
            Self.isMalformed(error, at: [], "cannot demarshal")
        }
    }

    @Test("random byte flips never crash the decoder")
    func byteFlips() throws {
        let bytes = try MessageRoundTrip.bytes(of: [.uint32(0), .vardict(["streams": .array(
            element: .structure([.uint32, .vardict]), [.structure([.uint32(7), .vardict(["size": .structure([.int32(1), .int32(2)])])])])])])
        var rejected = 0
        for i in 0..<bytes.count {
            var copy = bytes
            copy[i] ^= 0xA5
            do { _ = try DBusMessage.demarshal(copy).arguments() } catch { rejected += 1 }
        }
        #expect(rejected > bytes.count / 2, "libdbus validation should reject most corruptions")
    }
}
