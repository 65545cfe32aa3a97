import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// `pwrecord record` turns transparent huge pages off for its own process (libx264 would round each frame up
/// to 2 MB pages: bench/README.md, recording-memory): `THP_enabled` is 0 in its status while it records.
@Suite("pwrecord record runs without transparent huge pages", .enabled(if: TestDesktop.isAvailable))
struct RecordHugePagesTests {
    @Test("while recording, its status says THP_enabled 0, though the test process that started it has them on")
    func recordsWithoutHugePages() async throws {
        // The child inherits the setting from this process, so the check only means something while it is on here.
        try #require(ProcessStatus.field("THP_enabled") == "1", "this kernel does not report THP_enabled, or it is off for the tests")
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("thp.mkv")
        let (seen, r) = try await TestPortalControl.exclusively { _ -> (String?, Pwrecord.Result) in
            let p = try PwrecordProcess(["record", "-o", out.path, "--duration", "30", "--cursor", "hidden"], environment: home.env)
            _ = await home.waitForRecording(to: out)
            let seen = ProcessStatus.field("THP_enabled", of: String(p.pid))
            p.send(SIGINT)
            return (seen, await p.wait(timeout: 30))
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(seen == "0", "THP_enabled of the recording pwrecord: \(seen ?? "unknown")")
    }
}
