import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// A recorder on a private state directory and policy directory, with a local provider.
struct RecorderHarness {
    let root: URL
    let provider: LocalScreenCastProvider
    let recorder: ScreenRecorder
    let policyDir: URL
    let userPolicy: URL

    init(appID: String = "org.pwrecord.Test", behaviour: LocalScreenCastProvider.Behaviour = .init(),
         systemPolicy: String? = nil, configure: (inout ScreenRecorderConfiguration) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)")
        policyDir = root.appendingPathComponent("etc-pwrecord")
        userPolicy = root.appendingPathComponent("config/pwrecord/policy.conf")
        try FileManager.default.createDirectory(at: policyDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: userPolicy.deletingLastPathComponent(), withIntermediateDirectories: true)
        chmod(policyDir.path, 0o755)
        if let systemPolicy {
            let file = policyDir.appendingPathComponent("policy.conf")
            try systemPolicy.write(to: file, atomically: true, encoding: .utf8)
            chmod(file.path, 0o644)
        }
        provider = LocalScreenCastProvider(behaviour)
        let root = self.root, policyDir = self.policyDir, userPolicy = self.userPolicy
        recorder = ScreenRecorder.standard(appID: appID, provider: provider) { c in
            c.store = RecordingStore(root: root.appendingPathComponent("state/recordings"))
            c.policy = PolicyLocations(systemDirectory: policyDir.path, userFile: userPolicy.path, trustedOwner: getuid())
            c.progressInterval = .milliseconds(200)
            // These tests are not about how soon the first frame comes: on CI's 2 busy cores one start once
            // waited past the 10 s default (the error now says how far the stream got). A test of the
            // timeout sets its own.
            c.firstFrameTimeout = .seconds(30)
            configure(&c)
        }
    }

    /// Records for `duration`, then stops: the recording (the start, wait and stop many tests begin with).
    func record(for duration: Duration) async throws -> Recording {
        try await recorder.startRecording()
        try await Task.sleep(for: duration)
        return try await recorder.stopRecording()
    }

    func writeUserPolicy(_ text: String) throws {
        let tmp = userPolicy.appendingPathExtension("tmp")
        try text.write(to: tmp, atomically: false, encoding: .utf8)
        rename(tmp.path, userPolicy.path)
    }

    /// The files in `dir`, but the app's recording lock (`.lock`, which stays once made).
    func files(in dir: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { $0 != ".lock" }.sorted() ?? []
    }

    var storeDir: URL { root.appendingPathComponent("state/recordings/org.pwrecord.Test") }
}

/// Collects delegate calls with their times.
final class DelegateSpy: ScreenRecorderDelegate {
    private let calls = Mutex<[(String, ContinuousClock.Instant)]>([])
    private let stops = Mutex<[RecordingError?]>([])
    private let availabilities = Mutex<[Availability]>([])

    func screenRecorderDidChangeAvailability(_ recorder: ScreenRecorder, availability: Availability) {
        calls.withLock { $0.append(("availability", .now)) }
        availabilities.withLock { $0.append(availability) }
    }
    func screenRecorderDidStartRecording(_ recorder: ScreenRecorder) { calls.withLock { $0.append(("started", .now)) } }
    func screenRecorder(_ recorder: ScreenRecorder, didStopRecordingWith error: RecordingError?) {
        calls.withLock { $0.append(("stopped", .now)) }
        stops.withLock { $0.append(error) }
    }

    var stopErrors: [RecordingError?] { stops.withLock { $0 } }
    var availabilityChanges: [Availability] { availabilities.withLock { $0 } }
    func firstTime(of name: String) -> ContinuousClock.Instant? { calls.withLock { $0.first { $0.0 == name }?.1 } }
    func lastTime(of name: String) -> ContinuousClock.Instant? { calls.withLock { $0.last { $0.0 == name }?.1 } }

    /// Waits up to 5 s for the recording (or capture) to stop, expects that with `still` as the message, and
    /// returns the reason of its `disabled` error; records an issue (and returns nil) for any other end.
    func disabledStop(still: String = "still recording", sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
        #expect(await eventually(timeout: .seconds(5)) { self.stopErrors.count == 1 }, "\(still)", sourceLocation: sourceLocation)
        guard case .disabled(let reason)?? = stopErrors.first else {
            Issue.record("expected disabled, got \(stopErrors)", sourceLocation: sourceLocation)
            return nil
        }
        return reason
    }
}

/// `MediaTool.duration(_:)` under the name this target's tests use.
func mediaDuration(_ path: String) throws -> Double { try MediaTool.duration(path) }
