import PortalTestSupport
import Foundation
import Testing
@testable import PortalCapture

/// What the client sends to end requests and sessions, and which options it leaves out, as the test backend sees
/// it behind the REAL xdg-desktop-portal frontend (`Stats`, `LastOptions`): the fake portal proves these against
/// itself, these prove them on the real stack.
@Suite("Portal client as the backend sees it", .tags(.desktop), .enabled(if: TestDesktop.isAvailable),
       .serialized, .timeLimit(.minutes(2)))
struct PortalLifecycleDesktopTests {
    let bus: DBusConnection

    init() throws {
        bus = try DBusConnection.session()
    }

    func portal(consent: Duration = .seconds(20)) -> ScreenCastPortal {
        ScreenCastPortal(connection: bus, timeouts: PortalTimeouts(consent: consent, call: .seconds(10)))
    }

    // MARK: Request.Close

    @Test("a timed-out request is closed: the backend's pending request goes")
    func timedOutRequestIsClosed() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal(consent: .seconds(1)).createSession()
            defer { Task { await session.close() } }
            try await session.selectSources(ScreenCastOptions())
            let before = try await control.stat("pending_requests")
            try await control.setNextResponse("Start", 3)
            #expect(await portalError { try await session.start() } == .timedOut(request: "Start", seconds: 1))
            // Only Request.Close removes it: the session is still open, and the backend never answers.
            #expect(await eventually { (try? await control.stat("pending_requests")) == before },
                    "the request is still pending at the backend: Request.Close was not sent")
        }
    }

    @Test("cancelling the task closes the request at the backend and gives cancelled")
    func cancelledRequestIsClosed() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal().createSession()
            defer { Task { await session.close() } }
            let before = try await control.stat("pending_requests")
            try await control.setNextResponse("SelectSources", 3)
            let pending = Task { await portalError { try await session.selectSources(ScreenCastOptions()) } }
            #expect(await eventually { (try? await control.stat("pending_requests")) == before + 1 })
            pending.cancel()
            #expect(await pending.value == .cancelled)
            #expect(await eventually { (try? await control.stat("pending_requests")) == before },
                    "the request is still pending at the backend: Request.Close was not sent")
        }
    }

    @Test("a start cancelled while the dialog is open (Start never answered) closes its session at the backend")
    func cancelledStartClosesItsSession() async throws {
        try await TestPortalControl.exclusively { control in
            let before = try await control.stat("live_sessions")
            try await control.setNextResponse("Start", 3)
            let pending = Task { await portalError { _ = try await portal().start(ScreenCastOptions().sources(.monitor), appID: "org.example.Cancel") } }
            #expect(await eventually { (try? await control.stat("live_sessions")) == before + 1 })
            pending.cancel()
            #expect(await pending.value == .cancelled)
            #expect(await eventually { (try? await control.stat("live_sessions")) == before },
                    "the session outlived its cancelled start: Session.Close was not sent")
        }
    }

    // MARK: Session.Close

    @Test("close() ends the session at the backend")
    func closeEndsTheBackendSession() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal().start(ScreenCastOptions().sources(.monitor), appID: "org.example.Close")
            #expect(try await control.stat("live_sessions") == 1)
            #expect(try await control.stat("live_streams") == 1)
            await session.close()
            #expect(await eventually { (try? await control.stat("live_sessions")) == 0 })
            #expect(await eventually { (try? await control.stat("live_streams")) == 0 })
        }
    }

    @Test("releasing an open session ends it at the backend")
    func releasedSessionIsClosed() async throws {
        try await TestPortalControl.exclusively { control in
            var session: ScreenCastSession? = try await portal().start(ScreenCastOptions(), appID: "org.example.Drop")
            #expect(session?.isClosed == false)
            #expect(try await control.stat("live_sessions") == 1)
            session = nil
            #expect(await eventually { (try? await control.stat("live_sessions")) == 0 },
                    "the released session is still live at the backend: Session.Close was not sent")
        }
    }

    @Test("a declined request's session is closed by the portal with Closed; after it, and after the frontend ended a session unheard, calls give sessionClosed")
    func frontendClosedSession() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal().createSession()
            defer { Task { await session.close() } }
            try await control.setNextResponse("SelectSources", 1)
            #expect(await portalError { try await session.selectSources(ScreenCastOptions()) } == .cancelled)
            #expect(await eventually { (try? await control.stat("live_sessions")) == 0 })
            // The frontend (1.16) sends Closed for the session it ended (docs/portal.md).
            #expect(await collect(session.closeEvents(), count: 2, within: .seconds(2)) == [.byPortal])
            #expect(await portalError { try await session.selectSources(ScreenCastOptions()) } == .sessionClosed)

            // A session the frontend ended without the client hearing of it (closed behind its back on the same
            // connection): the client still thinks it open, so the frontend's own answer is what is mapped.
            let unheard = try await portal().createSession()
            defer { Task { await unheard.close() } }
            _ = try await bus.call(destination: DesktopPortal.busName, path: unheard.handle,
                                   interface: DesktopPortal.sessionInterface, member: "Close")
            #expect(await eventually { (try? await control.stat("live_sessions")) == 0 })
            #expect(!unheard.isClosed)
            #expect(await portalError { try await unheard.selectSources(ScreenCastOptions()) } == .sessionClosed)
        }
    }

    // MARK: Options

    @Test("unset options are not sent to the backend")
    func unsetOptionsNotSent() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal().start(ScreenCastOptions(), appID: "org.example.Unset")
            await session.close()
            let selected = try await control.lastOptions("SelectSources")
            for key in ["types", "multiple", "cursor_mode", "persist_mode", "restore_data"] {
                #expect(selected[key] == nil, "\(key) was sent: \(selected)")
            }

            let chosen = try await portal().start(ScreenCastOptions().sources(.window).multiple(false)
                .cursor(.hidden).persist(.doNotPersist), appID: "org.example.Unset")
            await chosen.close()
            let sent = try await control.lastOptions("SelectSources")
            #expect(sent["types"] == .uint32(2))
            #expect(sent["multiple"] == .bool(false))
            #expect(sent["cursor_mode"] == .uint32(1))
            #expect(sent["persist_mode"] == .uint32(0))
        }
    }

    @Test("a screenshot's interactive option reaches the backend; interactive ones show a dialog",
          arguments: [nil, false, true] as [Bool?])
    func screenshotOptions(interactive: Bool?) async throws {
        try await TestPortalControl.exclusively { control in
            let screenshots = ScreenshotPortal(connection: bus, timeouts: PortalTimeouts(consent: .seconds(20), call: .seconds(10)))
            // The first non-interactive screenshot of a run asks for permission (an Access dialog, then
            // remembered by the frontend); take it first so the count below is about this request alone.
            _ = try await screenshots.take(PortalScreenshotOptions(interactive: false))
            let before = try await control.stat("dialogs_shown")
            let shot = try await screenshots.take(PortalScreenshotOptions(interactive: interactive))
            #expect(shot.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let sent = try await control.lastOptions("Screenshot")
            #expect(sent["interactive"] == interactive.map(DBusValue.bool))
            #expect(try await control.stat("dialogs_shown") == before + (interactive == true ? 1 : 0))
        }
    }
}
