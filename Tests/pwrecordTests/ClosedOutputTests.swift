import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// pwrecord's own messages go to a reader that may have gone away (`pwrecord record | head -n1`, a closed
/// terminal): the text is lost, never the recording or the exit status.
@Suite("pwrecord with nobody reading its output", .serialized)
struct ClosedOutputTests {
    /// Runs `pwrecord arguments...` with stdout and stderr pipes whose reading ends are closed before it starts
    /// (every write is EPIPE), and returns how it ended.
    static func runUnread(_ arguments: [String], environment: [String: String], timeout: Double = 60) async throws
        -> (reason: Process.TerminationReason, status: Int32) {
        try await offThePool {
            let p = Process()
            p.executableURL = Pwrecord.binary
            p.arguments = arguments
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            p.standardInput = FileHandle.nullDevice
            try out.fileHandleForReading.close()
            try err.fileHandleForReading.close()
            try p.run()
            let deadline = Date().addingTimeInterval(timeout)
            while p.isRunning && Date() < deadline { usleep(20_000) }
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
            return (p.terminationReason, p.terminationStatus)
        }
    }

    @Test("a result printed to a closed pipe ends with the command's exit status, not a crash")
    func resultToClosedPipe() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let ended = try await Self.runUnread(["--version"], environment: home.env)
        #expect(ended.reason == .exit, "ended by signal \(ended.status)")
        #expect(ended.status == 0)
        let failed = try await Self.runUnread(["record", "--no-such-option"], environment: home.env)
        #expect(failed.reason == .exit, "ended by signal \(failed.status)")
        #expect(failed.status == 2)
    }

    @Test("a recording whose messages nobody reads is finished and placed: exit 0, the file plays",
          .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func recordingWithClosedOutput() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("unread.mkv")
        let ended = try await TestPortalControl.exclusively { _ in
            try await Self.runUnread(["record", "-o", out.path, "--duration", "2"], environment: home.env)
        }
        #expect(ended.reason == .exit, "ended by signal \(ended.status)")
        #expect(ended.status == 0)
        let duration = try MediaTool.duration(out.path)
        #expect(duration > 1.5 && duration < 2.5, "duration \(duration) s")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.root.path).filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
