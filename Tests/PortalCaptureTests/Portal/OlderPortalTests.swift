import Foundation
import Testing
@testable import PortalCapture

/// Whole sessions with ScreenCast portals older than the test desktop's (which always says version 4): each version
/// streams with what it takes, and nothing newer is sent. (Version 3 is in `FakePortalTests`, 4 on the desktop.)
@Suite("Portal client against older portals", .enabled(if: PrivateBus.isAvailable), .timeLimit(.minutes(1)))
struct OlderPortalTests {
    @Test("a version 1 portal (no AvailableCursorModes) streams, and gets only types and multiple")
    func versionOne() async throws {
        let fake = try await FakePortal.start(.init(version: 1, cursorModes: nil))
        defer { fake.stop() }
        let portal = try fake.screenCast()
        #expect(try await portal.capabilities() == ScreenCastCapabilities(version: 1, sourceTypes: [.monitor, .window],
                                                                         cursorModes: []))
        let memory = ConsentMemory(store: tokenStore(), maxAge: .seconds(600))
        let session = try await portal.start(ScreenCastOptions().sources(.monitor).multiple(false), appID: "app",
                                             consent: memory)
        #expect(session.streams.map(\.nodeID) == [42])
        let select = try #require(fake.calls("SelectSources").first)
        #expect(Set(select.options.keys) == ["types", "multiple", "handle_token"])
        #expect(session.consent == ConsentReport())
        #expect(memory.store.entry(for: "app") == nil)
        #expect(fake.calls("CreateSession").count == 1)
        await session.close()
    }

    @Test("a version 2 portal streams with a cursor mode, and gets no persistence option")
    func versionTwo() async throws {
        let fake = try await FakePortal.start(.init(version: 2))
        defer { fake.stop() }
        let memory = ConsentMemory(store: tokenStore(), maxAge: nil)
        try memory.remember("token-from-a-newer-portal", for: "app",
                            selection: ScreenCastOptions().sources(.window).consentSelection)
        let session = try await fake.screenCast().start(ScreenCastOptions().sources(.window).cursor(.metadata),
                                                        appID: "app", consent: memory)
        #expect(session.streams.count == 1)
        #expect(session.streams.first?.sourceType == .window)
        let select = try #require(fake.calls("SelectSources").first)
        #expect(Set(select.options.keys) == ["types", "cursor_mode", "handle_token"])
        #expect(select.options["cursor_mode"] == .uint32(4))
        #expect(session.consent == ConsentReport())
        #expect(fake.calls("CreateSession").count == 1)
        await session.close()
    }

    func tokenStore() -> RestoreTokenStore {
        RestoreTokenStore(directory: FileManager.default.temporaryDirectory
            .appendingPathComponent("older-consent-\(UUID().uuidString)/restore-tokens"))
    }
}
