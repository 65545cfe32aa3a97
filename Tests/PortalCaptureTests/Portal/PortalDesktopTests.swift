import PortalTestSupport
import Foundation
import Synchronization
import Testing
@testable import PortalCapture

/// The portal client through the REAL xdg-desktop-portal frontend on the headless test desktop, with the test
/// backend (`pwrecord-test-portal`) behind it, steered through its control interface.
///
/// The backend is shared by every suite of a run: each test steers it only inside
/// `TestPortalControl.exclusively` (the run-wide lease, which starts with `Reset()`), and reads counters as
/// differences.
@Suite("Portal client on the test desktop", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized,
       .timeLimit(.minutes(2)))
struct PortalDesktopTests {
    let bus: DBusConnection
    let portal: ScreenCastPortal

    init() throws {
        bus = try DBusConnection.session()
        portal = ScreenCastPortal(connection: bus, timeouts: PortalTimeouts(consent: .seconds(20), call: .seconds(10)))
    }

    func consent(maxAge: Duration? = .seconds(600)) -> ConsentMemory {
        ConsentMemory(store: RestoreTokenStore(directory: FileManager.default.temporaryDirectory
            .appendingPathComponent("desktop-consent-\(UUID().uuidString)/restore-tokens")), maxAge: maxAge)
    }

    // MARK: Round trips

    @Test("monitor and window round trips with each cursor mode reach PipeWire", arguments:
            [SourceTypes.monitor, .window], [CursorModes.hidden, .embedded, .metadata])
    func roundTrip(source: SourceTypes, cursor: CursorModes) async throws {
        try await TestPortalControl.exclusively { control in
            let capabilities = try await portal.capabilities()
            #expect(capabilities.version == 4)
            let session = try await portal.start(ScreenCastOptions().sources(source).cursor(cursor), appID: "org.example.App")
            defer { Task { await session.close() } }
            let stream = try #require(session.streams.first)
            #expect(session.streams.count == 1)
            #expect(stream.sourceType == source)
            #expect(stream.size != nil)
            #expect((stream.position != nil) == (source == .monitor))

            let selected = try await control.lastOptions("SelectSources")
            #expect(selected["types"] == .uint32(source.rawValue))
            #expect(selected["cursor_mode"] == .uint32(cursor.rawValue))

            let fd = try await session.openPipeWireRemote()
            let core = try PipeWireCore(connectingTo: try #require(fd.take()), name: "portal-test")
            defer { core.close() }
            let node = try await core.waitForNode { $0.id == stream.nodeID }
            #expect(node.id == stream.nodeID)
            await session.close()
            #expect(session.closure == .byClient)
        }
    }

    @Test("multiple gives two streams", arguments: [SourceTypes([.monitor, .window]), .monitor])
    func multiple(sources: SourceTypes) async throws {
        try await TestPortalControl.exclusively { _ in
            let session = try await portal.start(ScreenCastOptions().sources(sources).multiple(true), appID: "app")
            defer { Task { await session.close() } }
            #expect(session.streams.count == 2)
            #expect(Set(session.streams.map(\.nodeID)).count == 2)
            let types = session.streams.compactMap(\.sourceType)
            #expect(types == (sources == .monitor ? [.monitor, .monitor] : [.monitor, .window]))
        }
    }

    @Test("several streams for one source (the KDE quirk) leave the last one")
    func extraStreams() async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["streams_per_source": UInt32(3)])
            let session = try await portal.start(ScreenCastOptions().sources(.monitor), appID: "app")
            defer { Task { await session.close() } }
            #expect(session.reportedStreamCount == 3)
            #expect(session.streams.count == 1)
        }
    }

    // MARK: Remembered consent

    @Test("persist mode 2 returns a token, and a second session with it shows no dialog")
    func persistence() async throws {
        try await TestPortalControl.exclusively { control in
            let memory = consent()
            let before = try await control.stat("dialogs_shown")
            let first = try await portal.start(ScreenCastOptions().sources(.monitor), appID: "org.example.Persist",
                                               consent: memory)
            await first.close()
            #expect(first.restoreToken != nil)
            #expect(first.consent == ConsentReport(tokenSent: false, tokenStored: true))
            #expect(try await control.lastOptions("SelectSources")["persist_mode"] == .uint32(2))
            let afterFirst = try await control.stat("dialogs_shown")
            #expect(afterFirst == before + 1)

            let second = try await portal.start(ScreenCastOptions().sources(.monitor), appID: "org.example.Persist",
                                                consent: memory)
            await second.close()
            #expect(second.consent == ConsentReport(tokenSent: true, tokenStored: true))
            #expect(try await control.lastOptions("SelectSources")["restore_data"] != nil)
            #expect(try await control.stat("dialogs_shown") == afterFirst)
            #expect(memory.store.entry(for: "org.example.Persist")?.token == second.restoreToken)
        }
    }

    @Test("a consent remembered for a window is not sent when a monitor is asked for: the dialog asks again")
    func tokenIsBoundToTheSelection() async throws {
        try await TestPortalControl.exclusively { control in
            let memory = consent()
            let window = try await portal.start(ScreenCastOptions().sources(.window), appID: "org.example.Choice",
                                                consent: memory)
            await window.close()
            #expect(window.consent.tokenStored)
            let before = try await control.stat("dialogs_shown")
            let monitor = try await portal.start(ScreenCastOptions().sources(.monitor), appID: "org.example.Choice",
                                                 consent: memory)
            await monitor.close()
            #expect(!monitor.consent.tokenSent)
            #expect(try await control.lastOptions("SelectSources")["restore_data"] == nil)
            #expect(try await control.stat("dialogs_shown") == before + 1, "the user is asked about the monitor")
            #expect(monitor.streams.first?.sourceType == .monitor)
            // The monitor's consent replaced the window's, and is sent for the monitor next time.
            let again = try await portal.start(ScreenCastOptions().sources(.monitor), appID: "org.example.Choice",
                                               consent: memory)
            await again.close()
            #expect(again.consent.tokenSent)
            #expect(try await control.stat("dialogs_shown") == before + 1)
        }
    }

    @Test("a restored grant keeps the consent's time: recording often does not stretch the memory")
    func restoredGrantKeepsConsentTime() async throws {
        try await TestPortalControl.exclusively { control in
            let memory = consent(maxAge: .seconds(60))
            let first = try await portal.start(ScreenCastOptions(), appID: "org.example.Often", consent: memory)
            await first.close()
            // The user answered 50 s ago: the token is still good for 10 s.
            let answered = Date().addingTimeInterval(-50)
            try memory.store.store(try #require(first.restoreToken), for: "org.example.Often",
                                   selection: ScreenCastOptions().consentSelection, now: answered)
            let before = try await control.stat("dialogs_shown")
            let second = try await portal.start(ScreenCastOptions(), appID: "org.example.Often", consent: memory)
            await second.close()
            #expect(second.consent.tokenSent && second.consent.tokenStored)
            #expect(try await control.stat("dialogs_shown") == before, "restored without a dialog")
            let entry = try #require(memory.store.entry(for: "org.example.Often"))
            #expect(entry.token == second.restoreToken)
            #expect(abs(entry.issued.timeIntervalSince(answered)) < 1, "issued \(entry.issued), answered \(answered)")
        }
    }

    @Test("with remembering off, a token kept from before is deleted and not sent")
    func rememberingOffForgets() async throws {
        try await TestPortalControl.exclusively { control in
            let on = consent()
            let first = try await portal.start(ScreenCastOptions(), appID: "org.example.Off", consent: on)
            await first.close()
            #expect(on.store.entry(for: "org.example.Off") != nil)
            let off = ConsentMemory(store: on.store, maxAge: .zero)
            let second = try await portal.start(ScreenCastOptions(), appID: "org.example.Off", consent: off)
            await second.close()
            #expect(!second.consent.tokenSent)
            #expect(on.store.entry(for: "org.example.Off") == nil)
        }
    }

    @Test("an expired token is not sent")
    func expiredToken() async throws {
        try await TestPortalControl.exclusively { control in
            let memory = consent(maxAge: .seconds(60))
            let first = try await portal.start(ScreenCastOptions(), appID: "org.example.Expired", consent: memory)
            await first.close()
            let token = try #require(first.restoreToken)
            try memory.store.store(token, for: "org.example.Expired", selection: ScreenCastOptions().consentSelection,
                                   now: Date().addingTimeInterval(-3600))
            let before = try await control.stat("dialogs_shown")

            let second = try await portal.start(ScreenCastOptions(), appID: "org.example.Expired", consent: memory)
            await second.close()
            #expect(!second.consent.tokenSent)
            let selected = try await control.lastOptions("SelectSources")
            #expect(selected["restore_data"] == nil)
            #expect(selected["persist_mode"] == .uint32(2))
            #expect(try await control.stat("dialogs_shown") == before + 1)
        }
    }

    @Test("a token the backend rejects leads to exactly one retry without it")
    func rejectedToken() async throws {
        try await TestPortalControl.exclusively { control in
            let memory = consent()
            let first = try await portal.start(ScreenCastOptions(), appID: "org.example.Rejected", consent: memory)
            await first.close()
            #expect(first.restoreToken != nil)

            try await control.rejectRestoreTokens(true)
            let sessionsBefore = try await control.stat("sessions_created")
            let dialogsBefore = try await control.stat("dialogs_shown")
            let second = try await portal.start(ScreenCastOptions(), appID: "org.example.Rejected", consent: memory)
            try await control.rejectRestoreTokens(false)
            await second.close()
            #expect(try await control.stat("sessions_created") == sessionsBefore + 2)
            #expect(second.consent == ConsentReport(tokenSent: true, tokenRefused: true, tokenStored: true))
            #expect(try await control.lastOptions("SelectSources")["restore_data"] == nil)
            #expect(try await control.stat("dialogs_shown") == dialogsBefore + 1)
        }
    }

    // MARK: Failures

    @Test("declined gives cancelled, failed gives ended", arguments: ["SelectSources", "Start"], [UInt32(1), 2])
    func declinedAndFailed(method: String, response: UInt32) async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setNextResponse(method, response)
            let failure = await portalError { _ = try await portal.start(ScreenCastOptions(), appID: "app") }
            #expect(failure == (response == 1 ? .cancelled : .ended))
        }
    }

    @Test("a silent backend gives timedOut within the configured time")
    func silentBackend() async throws {
        try await TestPortalControl.exclusively { control in
            let impatient = ScreenCastPortal(connection: bus, timeouts: PortalTimeouts(consent: .seconds(1), call: .seconds(30)))
            let session = try await impatient.createSession()
            defer { Task { await session.close() } }
            try await session.selectSources(ScreenCastOptions())
            try await control.setNextResponse("Start", 3)
            let (failure, elapsed) = await measure { await portalError { try await session.start() } }
            #expect(failure == .timedOut(request: "Start", seconds: 1))
            // Well under the 30 s of every other timeout; the margin is for a loaded machine.
            #expect(elapsed >= .seconds(1) && elapsed < .seconds(6))
        }
    }

    @Test("an unavailable cursor mode gives invalidArgument with the frontend's text")
    func unavailableCursorMode() async throws {
        try await TestPortalControl.exclusively { control in
            let before = try await control.stat("dialogs_shown")
            let failure = await portalError {
                _ = try await portal.start(ScreenCastOptions().cursor(CursorModes(rawValue: 8)), appID: "app")
            }
            guard case .invalidArgument(let message)? = failure else {
                Issue.record("expected invalidArgument, got \(String(describing: failure))")
                return
            }
            #expect(message.contains("cursor mode"))
            #expect(try await control.stat("dialogs_shown") == before)
        }
    }

    @Test("a session closed by the backend with Closed is reported once")
    func closedByBackend() async throws {
        try await TestPortalControl.exclusively { control in
            let session = try await portal.start(ScreenCastOptions(), appID: "app")
            let reports = Mutex<[SessionClosure]>([])
            session.onClose { closure in reports.withLock { $0.append(closure) } }
            let events = session.closeEvents()
            try await control.closeSessions(emitClosed: true)
            #expect(await collect(events, count: 2, within: .seconds(2)) == [.byPortal])
            await session.close()
            #expect(reports.withLock { $0 } == [.byPortal])
            #expect(await portalError { _ = try await session.openPipeWireRemote() } == .sessionClosed)
        }
    }

    // MARK: The recorder's provider

    @Test("the production provider grants a cast on the portal's PipeWire connection; Closed ends it")
    func provider() async throws {
        try await TestPortalControl.exclusively { control in
            let tokens = RestoreTokenStore(directory: FileManager.default.temporaryDirectory
                .appendingPathComponent("desktop-provider-\(UUID().uuidString)/restore-tokens"))
            let provider = PortalScreenCastProvider(connection: bus, timeouts: portal.timeouts, tokens: tokens)
            #expect(await provider.unavailability() == nil)
            let grant = try await provider.startCast(ScreenCastRequest(appID: "org.example.Provider", sources: .window,
                                                                       multiple: false, cursor: .metadata,
                                                                       consentMemory: .seconds(60)))
            let node = try await grant.core.waitForNode { $0.id == grant.nodeID }
            #expect(node.id == grant.nodeID)
            #expect(grant.announcedSize != nil)
            #expect(tokens.entry(for: "org.example.Provider") != nil)
            let closed = grant.closed
            try await control.closeSessions(emitClosed: true)
            let (elements, elapsed): ([Void], Duration) = await measure { await collect(closed, count: 1, within: .seconds(10)) }
            #expect(elements.count == 0)
            #expect(elapsed < .seconds(10), "the closed stream did not finish")
            await grant.close()
        }
    }

    // MARK: Screenshot

    @Test("screenshots come back as PNG bytes and their temporary file is removed", arguments: [false, true])
    func screenshot(interactive: Bool) async throws {
        try await TestPortalControl.exclusively { _ in
            let screenshots = ScreenshotPortal(connection: bus, timeouts: PortalTimeouts(consent: .seconds(20), call: .seconds(10)))
            #expect(try await screenshots.version() == 2)
            let shot = try await screenshots.take(PortalScreenshotOptions(interactive: interactive))
            #expect(shot.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(shot.removedFile)
            #expect(!FileManager.default.fileExists(atPath: shot.url.path))
        }
    }

    // MARK: Availability

    @Test("frontend stopped, then started: the availability stream says unavailable, then available")
    func frontendRestart() async throws {
        // A desktop of its own: stopping the shared desktop's frontend would break suites running beside this one.
        try await RunningDesktop.withDesktopOfItsOwn { desktop in try await availabilityFollowsTheFrontend(of: desktop) }
    }

    func availabilityFollowsTheFrontend(of desktop: RunningDesktop) async throws {
        let directory = desktop.stateDirectory
        let own = ScreenCastPortal(connection: try DBusConnection(address: desktop.busAddress))
        var changes = own.availabilityChanges().makeAsyncIterator()
        #expect(await changes.next()?.isAvailable == true)

        let stop = await onThread { RunningDesktop.runScript(["stop-frontend", directory]) }
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(await changes.next() == .unavailable(.portalNotFound))

        let restart = await onThread { RunningDesktop.runScript(["start-frontend", directory]) }
        #expect(restart.status == 0, "\(restart.stderr)")
        let back = await changes.next()
        guard case .available(let capabilities)? = back else {
            Issue.record("expected available, got \(String(describing: back))")
            return
        }
        #expect(capabilities.version == 4)
        #expect(await own.availability().isAvailable)
    }
}
