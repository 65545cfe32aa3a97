import Foundation
import Testing
@testable import PortalCapture

/// The recorder's view of the portal (`ScreenCastProvider`), against the fake frontend.
@Suite("Portal screen-cast provider against a fake portal", .enabled(if: PrivateBus.isAvailable), .timeLimit(.minutes(1)))
struct PortalScreenCastProviderTests {
    func request(cursor: CursorModes = .embedded) -> ScreenCastRequest {
        ScreenCastRequest(appID: "org.example.App", sources: .monitor, multiple: false, cursor: cursor, consentMemory: .zero)
    }

    func tokens() -> RestoreTokenStore {
        RestoreTokenStore(directory: FileManager.default.temporaryDirectory
            .appendingPathComponent("provider-\(UUID().uuidString)/restore-tokens"))
    }

    func startError(_ provider: PortalScreenCastProvider, _ request: ScreenCastRequest) async -> RecordingError? {
        do {
            let grant = try await provider.startCast(request)
            await grant.close()
            return nil
        } catch {
            return error
        }
    }

    @Test("without a portal the provider says why, naming xdg-desktop-portal")
    func unavailable() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let provider = PortalScreenCastProvider(connection: try bus.connect(), tokens: tokens())
        let reason = try #require(await provider.unavailability())
        #expect(reason.contains("xdg-desktop-portal"))
        #expect(await startError(provider, request()) == .portalUnavailable(reason: PortalError.portalNotFound.description))
    }

    @Test("no session bus at all is a reason, not a crash")
    func noBus() async {
        let provider = PortalScreenCastProvider(tokens: tokens(), environment: [:])
        let reason = await provider.unavailability()
        #expect(reason?.contains("session bus") == true)
        var changes = provider.availabilityChanges().makeAsyncIterator()
        #expect(await changes.next() == nil)
    }

    @Test("the provider reports the portal appearing")
    func appears() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let provider = PortalScreenCastProvider(connection: try bus.connect(), tokens: tokens())
        var changes = provider.availabilityChanges().makeAsyncIterator()
        #expect(await changes.next() != nil)   // once when the watch starts: now it is watching
        #expect(await provider.unavailability() != nil)
        let fake = try await FakePortal(bus: bus)
        defer { fake.server.close() }
        #expect(await changes.next() != nil)
        #expect(await provider.unavailability() == nil)
    }

    @Test("declined is userDeclined; a cursor mode a version 1 portal cannot take is unsupported")
    func errors() async throws {
        let fake = try await FakePortal.start()
        defer { fake.stop() }
        fake.script("Start", .respond(1, DBusVardict()))
        let provider = PortalScreenCastProvider(connection: try fake.bus.connect(), tokens: tokens())
        #expect(await startError(provider, request()) == .userDeclined)

        let old = try await FakePortal.start(.init(version: 1, cursorModes: nil))
        defer { old.stop() }
        let oldProvider = PortalScreenCastProvider(connection: try old.bus.connect(), tokens: tokens())
        let failure = await startError(oldProvider, request())
        guard case .unsupported(let text)? = failure else {
            Issue.record("expected unsupported, got \(String(describing: failure))")
            return
        }
        #expect(text.contains("version 2"))
        #expect(old.calls.isEmpty)
    }
}
