import Foundation
import Glibc
import Testing
@testable import PortalCapture

/// `ScreenRecorder.startRecording` against the fake portal refusing with `org.freedesktop.portal.Error.NotAllowed`,
/// as a desktop does when its permissions do not let the app capture the screen.
@Suite("Recorder when the desktop refuses screen capture", .enabled(if: PrivateBus.isAvailable), .timeLimit(.minutes(1)))
struct PortalRefusalTests {
    static let portalText = "Screen casting is not allowed for org.example.App"

    /// A stand-in for the encoder the recorder asks for by id (the real one lives in the Plugins module): takes
    /// the options the recorder gives it and records nothing.
    static func encoderStandIn() throws -> SinkRegistry {
        var registry = SinkRegistry()
        try registry.register(SinkFactory(id: "encoder", summary: "stand-in",
                                          options: ["output", "container", "codec", "rate", "fps"].map {
                                              SinkOptionInfo($0, summary: $0)
                                          }) { _ in RecordingSink(id: "encoder") })
        return registry
    }

    @Test("a NotAllowed answer to a ScreenCast call makes startRecording throw notPermitted with the portal's text, not the policy",
          arguments: ["CreateSession", "SelectSources", "Start"])
    func notAllowedIsNotPermitted(method: String) async throws {
        let fake = try await FakePortal.start()
        defer { fake.stop() }
        fake.script(method, .error(name: "org.freedesktop.portal.Error.NotAllowed", message: Self.portalText))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("refusal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let policyDir = root.appendingPathComponent("etc-pwrecord")
        try FileManager.default.createDirectory(at: policyDir, withIntermediateDirectories: true)
        chmod(policyDir.path, 0o755)

        var configuration = ScreenRecorderConfiguration(
            provider: PortalScreenCastProvider(connection: try fake.bus.connect(),
                                               tokens: RestoreTokenStore(directory: root.appendingPathComponent("tokens"))),
            sinks: try Self.encoderStandIn())
        configuration.store = RecordingStore(root: root.appendingPathComponent("recordings"))
        configuration.policy = PolicyLocations(systemDirectory: policyDir.path, userFile: nil, trustedOwner: getuid())
        let recorder = ScreenRecorder(appID: "org.example.App", configuration: configuration)
        #expect(recorder.policyDecision.isAvailable, "the test's empty policy should allow recording")

        var thrown: RecordingError?
        do {
            try await recorder.startRecording()
        } catch {
            thrown = error
        }
        #expect(thrown == .notPermitted(reason: Self.portalText))
        let text = thrown?.description ?? ""
        #expect(text.contains(Self.portalText) && text.contains("privacy settings"), "\(text)")
        #expect(!text.contains("policy"), "\(text)")
        #expect(fake.calls(method).count == 1)
        #expect(!recorder.isRecording)
        #expect(recorder.keptRecording == nil)
    }
}
