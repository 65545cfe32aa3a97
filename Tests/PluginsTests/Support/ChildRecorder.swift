import Foundation

/// Runs `SinkTestHelper` (built next to the test bundle) as a child process recording in real time, and
/// follows the frame numbers it reports on standard output.
final class ChildRecorder: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var lastSent = -1
    private var reader: Thread?

    /// The helper executable: in the same build folder as the running test binary.
    static var helperPath: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The test bundle may sit inside a `.xctest` folder on some layouts.
        if dir.pathExtension == "xctest" { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("SinkTestHelper").path
    }

    init(output: String, container: String, codec: String, seconds: Double) throws {
        process.executableURL = URL(fileURLWithPath: Self.helperPath)
        process.arguments = [output, container, codec, String(seconds)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.readSomeRetryingInterrupts()
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...nl)
                    if line.hasPrefix("sent "), let n = Int(line.dropFirst(5)) {
                        lock.lock(); lastSent = n; lock.unlock()
                    }
                }
            }
        }
        reader = thread
        thread.start()
    }

    /// The number of the last frame the child handed to its sink.
    var sent: Int {
        lock.lock(); defer { lock.unlock() }
        return lastSent
    }

    /// Waits until the child has sent frame `n` (or `timeout` passes); returns whether it did. It polls with
    /// `Task.sleep`: a test waiting seconds for its child must not hold one of the shared pool's threads (two on
    /// the CI machine), which every other test's tasks need meanwhile.
    func wait(untilSent n: Int, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if sent >= n { return true }
            if !process.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// `kill -9` the child (by its pid) and reap it; returns the last frame it reported.
    func killHard() async -> Int {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()   // at once: nothing outlives SIGKILL
        try? await Task.sleep(for: .milliseconds(50))   // let the reader take the last lines
        return sent
    }

    var terminationReason: Process.TerminationReason { process.terminationReason }
}
