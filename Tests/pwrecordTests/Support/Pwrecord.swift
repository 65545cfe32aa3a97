import Foundation

/// Runs the built `pwrecord` binary (next to the test bundle in `.build/<config>/`) the way a user would.
struct Pwrecord {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !dir.path.isEmpty, dir.path != "/" {
            let candidate = dir.appendingPathComponent("pwrecord")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDir), !isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/pwrecord")
    }

    /// Runs `pwrecord arguments...` with `environment` added to the test's own, waiting at most `timeout` s.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) async throws -> Result {
        try await offThePool { try runBlocking(arguments, environment: environment, timeout: timeout) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String], timeout: Double) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        let outData = LockedData(), errData = LockedData()
        let group = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            group.enter()
            // Threads of their own (see `offThePool`): a read blocks for the child's whole run.
            Thread { sink.set(pipe.fileHandleForReading.readAllRetryingInterrupts()); group.leave() }.start()
        }
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        group.wait()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
                      stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

extension Pwrecord {
    /// Runs `pwrecord arguments...`, sends SIGINT after `seconds`, and returns its exit status.
    static func runInterrupted(_ arguments: [String], environment: [String: String] = [:], after seconds: Double) async throws -> Int32 {
        try await offThePool { try runInterruptedBlocking(arguments, environment: environment, after: seconds) }
    }

    private static func runInterruptedBlocking(_ arguments: [String], environment: [String: String], after seconds: Double) throws -> Int32 {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Wait until it records (its kept file appears) or the time passes, then interrupt.
        usleep(UInt32(seconds * 1_000_000))
        kill(p.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(30)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        return p.terminationStatus
    }
}

final class LockedData: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}
