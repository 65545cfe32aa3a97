import Foundation

/// `pwrecord` running in the background, as a user's terminal would run it: in a chosen folder, with extra
/// environment, signalled while it runs. (`Pwrecord.run` covers the run-and-wait case from the test's folder.)
final class PwrecordProcess: @unchecked Sendable {
    private let process = Process()
    private let out = LockedData(), err = LockedData()
    private let readers = DispatchGroup()

    /// Starts `pwrecord arguments...` in `folder` (default: the test's own) with `environment` added.
    init(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil) throws {
        process.executableURL = Pwrecord.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let folder { process.currentDirectoryURL = folder }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, sink) in [(outPipe, out), (errPipe, err)] {
            readers.enter()
            // Threads of their own (see `offThePool`): a read blocks for the child's whole run.
            Thread { [readers] in sink.set(pipe.fileHandleForReading.readAllRetryingInterrupts()); readers.leave() }.start()
        }
    }

    var isRunning: Bool { process.isRunning }

    /// Its process id.
    var pid: Int32 { process.processIdentifier }

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the exit (terminating it after `timeout` seconds) and returns what it printed.
    func wait(timeout: Double = 60) async -> Pwrecord.Result {
        await offThePool { self.waitBlocking(timeout: timeout) }
    }

    private func waitBlocking(timeout: Double) -> Pwrecord.Result {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            // SIGTERM, then SIGKILL 5 s later: a hung pwrecord that ignores SIGTERM must fail its test, not hang it.
            process.terminate()
            let killAt = Date().addingTimeInterval(5)
            while process.isRunning && Date() < killAt { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        readers.wait()
        return Pwrecord.Result(status: process.terminationStatus, stdout: String(decoding: out.get(), as: UTF8.self),
                               stderr: String(decoding: err.get(), as: UTF8.self))
    }

    /// Runs to the end in `folder` and returns what it printed.
    static func run(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil,
                    timeout: Double = 60) async throws -> Pwrecord.Result {
        try await PwrecordProcess(arguments, environment: environment, in: folder).wait(timeout: timeout)
    }
}
