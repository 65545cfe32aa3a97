import PortalTestSupport
import Testing
import PortalCapture

/// Scripted answers (`SetNextResponse`) as the client sees them through the real frontend.
@Suite("Scripted responses through the real frontend", .tags(.desktop), .enabled(if: TestDesktop.isAvailable),
       .serialized)
struct FoundationResponseTests {
    /// Runs the ScreenCast steps up to and including `method` (or a Screenshot) and returns what `method`
    /// answered, with the session when one was made.
    func run(until method: String, on portal: RawPortal) async throws -> (RawPortal.Response, DBusObjectPath?) {
        if method == "Screenshot" {
            return (try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")]), nil)
        }
        let (created, session) = try await portal.createSession()
        if method == "CreateSession" { return (created, session) }
        let path = try #require(session)
        let selected = try await portal.selectSources(path)
        if method == "SelectSources" { return (selected, path) }
        return (try await portal.start(path), path)
    }

    @Test("a request the backend declines or fails comes back to the client as Response 1 or 2",
          arguments: ["CreateSession", "SelectSources", "Start", "Screenshot"], [UInt32(1), 2])
    func scriptedResponseReachesTheClient(method: String, code: UInt32) async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            try await control.setNextResponse(method, code)
            let (response, session) = try await run(until: method, on: portal)
            #expect(response.code == code, "\(response)")
            if let session {
                // Any non-zero answer makes the frontend close the session (and the backend's).
                #expect(await eventually { (try? await control.stat("live_sessions")) == 0 })
                await #expect(throws: DBusError.self, "later calls on the session are refused") {
                    _ = try await portal.selectSources(session)
                }
            }
            // One-shot: the same steps now succeed.
            let (again, next) = try await run(until: method, on: portal)
            #expect(again.code == 0, "\(again)")
            if let next { try await portal.closeSession(next) }
        }
    }

    @Test("a response scripted for * answers the next call of any method, once")
    func wildcardAnswersTheNextCall() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            try await control.setNextResponse("*", 2)
            #expect(try await portal.createSession().response.code == 2)
            let (created, session) = try await portal.createSession()
            #expect(created.code == 0)
            try await portal.closeSession(try #require(session))
        }
    }

    @Test("a request told never to answer gets no Response, and its request object goes when the client closes it")
    func neverAnsweredRequest() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let session = try #require(try await portal.createSession().session)
            try await control.setNextResponse("SelectSources", 3)
            let pending = try await portal.send(RawPortal.screenCast, "SelectSources", [.objectPath(session)])
            #expect(await pending.response(within: .seconds(1)) == nil)
            #expect(try await control.stat("pending_requests") == 1)
            _ = try await portal.bus.call(destination: RawPortal.destination, path: pending.handle,
                                          interface: "org.freedesktop.portal.Request", member: "Close")
            #expect(await eventually { (try? await control.stat("pending_requests")) == 0 },
                    "the frontend passed Close on to the backend's request object")
            try? await portal.closeSession(session)
        }
    }

    @Test("SetNextResponse refuses an unknown method and an unknown response code with InvalidArgs")
    func badScriptIsRefused() async throws {
        try await TestPortalControl.exclusively { control in
            for (method, code) in [("Record", UInt32(1)), ("Start", 4)] {
                do {
                    try await control.setNextResponse(method, code)
                    Issue.record("SetNextResponse(\(method), \(code)) was accepted")
                } catch let DBusError.remote(name, message) {
                    #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
                    #expect(message.contains(code == 4 ? "response 4" : "'Record'"), "\(message)")
                }
            }
        }
    }
}
