import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// The headless test desktop, as in PortalCaptureTests: integration suites run only when it is up, and
/// under CI a missing desktop fails.
enum TestDesktop {
    static var isAvailable: Bool {
        let env = ProcessInfo.processInfo.environment
        let up = env["PWRECORD_TEST_DESKTOP"] == "1"
        if !up && env["CI"] == "true" { fatalError("CI=true but the test desktop is not running (PWRECORD_TEST_DESKTOP unset)") }
        return up
    }
}

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
            configure(&c)
        }
    }

    func writeUserPolicy(_ text: String) throws {
        let tmp = userPolicy.appendingPathExtension("tmp")
        try text.write(to: tmp, atomically: false, encoding: .utf8)
        rename(tmp.path, userPolicy.path)
    }

    func files(in dir: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.sorted() ?? []
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
}

func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The duration ffprobe reports for a media file's container, in seconds.
func mediaDuration(_ path: String) throws -> Double {
    let o = try MediaTool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
    guard o.status == 0, let d = Double(String(decoding: o.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw ToolError("ffprobe could not read \(path): \(o.stderr)")
    }
    return d
}
