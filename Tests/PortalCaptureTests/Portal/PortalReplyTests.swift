import Foundation
import Testing
@testable import PortalCapture

/// Replies built by hand, read without any bus: every malformed shape gives a clear error naming the key.
@Suite("Portal replies")
struct PortalReplyTests {
    /// The `key` of a malformed-reply error, or nil for any other outcome.
    func malformedKey(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            if case .malformedReply(_, let key, _)? = error as? PortalError { return key }
            return nil
        }
    }

    // MARK: Request paths

    @Test("the request path is predicted from the unique name and the token")
    func requestPathPrediction() throws {
        let token = try #require(HandleToken("pwrecord_1"))
        #expect(DesktopPortal.requestPath(uniqueName: ":1.42", token: token)?.rawValue
                == "/org/freedesktop/portal/desktop/request/1_42/pwrecord_1")
        #expect(DesktopPortal.requestPath(uniqueName: ":12.7", token: token)?.rawValue
                == "/org/freedesktop/portal/desktop/request/12_7/pwrecord_1")
        #expect(DesktopPortal.sessionPath(uniqueName: ":1.42", token: token)?.rawValue
                == "/org/freedesktop/portal/desktop/session/1_42/pwrecord_1")
    }

    @Test("a name that is not a unique name predicts no path", arguments: ["", ":", "org.example.Name", ":1.4-2/x"])
    func noPredictionForBadNames(name: String) throws {
        let token = try #require(HandleToken("t"))
        #expect(DesktopPortal.requestPath(uniqueName: name, token: token) == nil)
    }

    // MARK: Response signals

    @Test("response 0 gives the results")
    func responseZero() throws {
        let results = try PortalRequest.results(of: [.uint32(0), .vardict(["uri": .string("file:///tmp/a.png")])],
                                                method: "Screenshot")
        #expect(results["uri"] == .string("file:///tmp/a.png"))
    }

    @Test("response 1 is cancelled and response 2 is ended", arguments: [(UInt32(1), PortalError.cancelled), (2, .ended)])
    func declinedAndFailed(code: UInt32, expected: PortalError) {
        #expect(throws: expected) { try PortalRequest.results(of: [.uint32(code), .vardict([:])], method: "Start") }
    }

    @Test("an unknown response code is a malformed reply naming 'response'")
    func unknownCode() {
        #expect(malformedKey { _ = try PortalRequest.results(of: [.uint32(7), .vardict([:])], method: "Start") } == "response")
    }

    @Test("a Response body of the wrong shape names the part that is wrong", arguments: [
        ([DBusValue.string("0"), .vardict([:])], "response"),
        ([.uint32(0), .string("results")], "results"),
        ([.uint32(0)], "results"),
        ([], "response"),
        ([.uint32(0), .array(element: .string, [])], "results"),
    ])
    func wrongResponseShapes(body: [DBusValue], key: String) {
        #expect(malformedKey { _ = try PortalRequest.results(of: body, method: "Start") } == key)
    }

    @Test("a junk request handle is a malformed reply naming the handle", arguments: [
        [DBusValue.string("/not/an/object/path/typed/o")], [.uint32(3)], [], [.objectPath(.root), .uint32(1)],
    ])
    func junkHandles(reply: [DBusValue]) {
        #expect(malformedKey { _ = try PortalRequest.handle(in: reply, method: "SelectSources") } == "handle")
    }

    @Test("a request handle of type o is accepted")
    func goodHandle() throws {
        let path = try DBusObjectPath("/org/freedesktop/portal/desktop/request/1_2/t")
        #expect(try PortalRequest.handle(in: [.objectPath(path)], method: "Start") == path)
    }

    // MARK: CreateSession

    @Test("session_handle is read as s or o")
    func sessionHandleTypes() throws {
        let path = "/org/freedesktop/portal/desktop/session/1_2/s"
        #expect(try ScreenCastPortal.sessionHandle(in: DBusVardict(["session_handle": .string(path)])).rawValue == path)
        #expect(try ScreenCastPortal.sessionHandle(in: DBusVardict(["session_handle": .objectPath(try DBusObjectPath(path))])).rawValue == path)
    }

    @Test("a missing or junk session_handle names the key", arguments: [
        DBusVardict([:]), DBusVardict(["session_handle": .string("not a path")]),
        DBusVardict(["session_handle": .uint32(4)]), DBusVardict(["session": .string("/a")]),
    ])
    func junkSessionHandles(results: DBusVardict) {
        let key = malformedKey { _ = try ScreenCastPortal.sessionHandle(in: results) }
        #expect(key?.contains("session_handle") == true)
    }

    // MARK: Start results

    func stream(_ node: UInt32, _ properties: [String: DBusValue]) -> DBusValue {
        .structure([.uint32(node), .vardict(properties)])
    }

    func streams(_ elements: [DBusValue]) -> DBusValue {
        .array(element: PortalStream.dbusType, elements)
    }

    @Test("a stream's properties are read, version 4 and newer keys included")
    func streamProperties() throws {
        let results = DBusVardict([
            "streams": streams([stream(42, [
                "position": .structure([.int32(10), .int32(20)]), "size": .structure([.int32(1920), .int32(1080)]),
                "source_type": .uint32(1), "id": .string("monitor-0"), "mapping_id": .string("map-1"),
                "pipewire-serial": .uint64(9_000_000_001), "unknown-key": .string("ignored"),
            ])]),
            "restore_token": .string("5c5d7a9e-0d57-4c07-9f4f-6c0c6b1c4f00"),
        ])
        let result = try ScreenCastStartResult(results: results, requested: ScreenCastOptions())
        #expect(result.streams == [PortalStream(nodeID: 42, position: (10, 20), size: (1920, 1080), sourceType: .monitor,
                                                id: "monitor-0", mappingID: "map-1", pipewireSerial: 9_000_000_001)])
        #expect(result.restoreToken == "5c5d7a9e-0d57-4c07-9f4f-6c0c6b1c4f00")
    }

    @Test("a stream with only a node id is accepted (version 1 portals send little)")
    func minimalStream() throws {
        let result = try ScreenCastStartResult(results: DBusVardict(["streams": streams([stream(7, [:])])]),
                                               requested: ScreenCastOptions())
        #expect(result.streams == [PortalStream(nodeID: 7)])
        #expect(result.restoreToken == nil)
    }

    @Test("wrong types and missing keys in Start's results name the key", arguments: [
        (DBusVardict([:]), "streams"),
        (DBusVardict(["streams": .string("no")]), "streams"),
        (DBusVardict(["streams": .array(element: .uint32, [.uint32(1)])]), "streams"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType, [])]), "streams"),
        (DBusVardict(["streams": .array(element: .structure([.string, .vardict]),
                                        [.structure([.string("node"), .vardict([:])])])]), "field 0"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["size": .string("big")])])])]), "size"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["size": .structure([.int32(-1), .int32(0)])])])])]), "size"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["size": .structure([.int32(Int32.max), .int32(1080)])])])])]), "size"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["position": .structure([.int32(1)])])])])]), "position"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["source_type": .int32(1)])])])]), "source_type"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType,
                                        [.structure([.uint32(1), .vardict(["pipewire-serial": .uint32(1)])])])]), "pipewire-serial"),
        (DBusVardict(["streams": .array(element: PortalStream.dbusType, [.structure([.uint32(1), .vardict([:])])]),
                      "restore_token": .uint32(5)]), "restore_token"),
    ])
    func malformedStartResults(results: DBusVardict, key: String) {
        let found = malformedKey { _ = try ScreenCastStartResult(results: results, requested: ScreenCastOptions()) }
        #expect(found?.contains(key) == true, "key \(found ?? "none") should name \(key)")
    }

    @Test("several streams for one source keep only the last (KDE), as OBS does")
    func extraStreamsForOneSource() throws {
        let results = DBusVardict(["streams": streams([stream(40, [:]), stream(41, [:]), stream(42, [:])])])
        let single = try ScreenCastStartResult(results: results, requested: ScreenCastOptions().sources(.monitor))
        #expect(single.streams.map(\.nodeID) == [42])
        #expect(single.reportedStreamCount == 3)
        let multiple = try ScreenCastStartResult(results: results, requested: ScreenCastOptions().multiple(true))
        #expect(multiple.streams.map(\.nodeID) == [40, 41, 42])
    }

    @Test("source_type 2 for a monitor-only request is corrected to monitor (wlroots)")
    func wlrootsSourceType() throws {
        let results = DBusVardict(["streams": streams([stream(3, ["source_type": .uint32(2)])])])
        let monitorOnly = try ScreenCastStartResult(results: results, requested: ScreenCastOptions().sources(.monitor))
        #expect(monitorOnly.streams.first?.sourceType == .monitor)
        let either = try ScreenCastStartResult(results: results, requested: ScreenCastOptions().sources([.monitor, .window]))
        #expect(either.streams.first?.sourceType == .window)
    }

    // MARK: Capabilities

    @Test("capabilities are read from the properties; a version 1 portal has no cursor modes")
    func capabilities() throws {
        let v4 = try ScreenCastCapabilities(properties: DBusVardict([
            "version": .uint32(4), "AvailableSourceTypes": .uint32(3), "AvailableCursorModes": .uint32(7)]))
        #expect(v4 == ScreenCastCapabilities(version: 4, sourceTypes: [.monitor, .window],
                                             cursorModes: [.hidden, .embedded, .metadata]))
        let v1 = try ScreenCastCapabilities(properties: DBusVardict(["version": .uint32(1), "AvailableSourceTypes": .uint32(1)]))
        #expect(v1.cursorModes.isEmpty)
    }

    @Test("wrong or missing capability properties name the property", arguments: [
        (DBusVardict(["AvailableSourceTypes": .uint32(1)]), "version"),
        (DBusVardict(["version": .string("4"), "AvailableSourceTypes": .uint32(1)]), "version"),
        (DBusVardict(["version": .uint32(4)]), "AvailableSourceTypes"),
        (DBusVardict(["version": .uint32(4), "AvailableSourceTypes": .uint32(1), "AvailableCursorModes": .bool(true)]),
         "AvailableCursorModes"),
    ])
    func malformedCapabilities(properties: DBusVardict, key: String) {
        let found = malformedKey { _ = try ScreenCastCapabilities(properties: properties) }
        #expect(found?.contains(key) == true, "key \(found ?? "none") should name \(key)")
    }
}
