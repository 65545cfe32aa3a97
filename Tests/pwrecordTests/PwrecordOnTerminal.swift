import Foundation
import Glibc

/// `pwrecord` running with its standard output and standard error on a pseudo-terminal, as in a user's
/// terminal (`isatty` is true for both), with the terminal in raw mode so what it wrote arrives byte for byte
/// (no `\n` to `\r\n`). Standard input is /dev/null, or the terminal too with `inputFromTerminal` (then
/// `type(_:)` sends keys).
final class PwrecordOnTerminal: @unchecked Sendable {
    struct Result {
        var status: Int32
        /// Everything written to the terminal, standard output and error interleaved as they came.
        var output: String
    }

    private let process = Process()
    private let master: Int32
    private let collected = TerminalOutput()
    private let reader = DispatchGroup()

    /// Starts `pwrecord arguments...` in `folder` (default: the test's own) with `environment` added.
    init(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil,
         inputFromTerminal: Bool = false) throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard Self.openpty(&master, &slave) == 0 else { throw TerminalError("openpty: \(Self.lastError)") }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        self.master = master
        do {
            var mode = termios()
            guard tcgetattr(slave, &mode) == 0 else { throw TerminalError("tcgetattr: \(Self.lastError)") }
            cfmakeraw(&mode)
            guard tcsetattr(slave, TCSANOW, &mode) == 0 else { throw TerminalError("tcsetattr: \(Self.lastError)") }

            process.executableURL = Pwrecord.binary
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            if let folder { process.currentDirectoryURL = folder }
            let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            process.standardOutput = terminal
            process.standardError = terminal
            process.standardInput = inputFromTerminal ? terminal : FileHandle.nullDevice
            try process.run()
        } catch {
            close(slave)   // `master` is closed by deinit
            throw error
        }
        // Only the child holds the terminal now: reads end (EIO) once it has exited.
        close(slave)
        reader.enter()
        // A thread of its own, not a dispatch queue: the read blocks for the child's whole run, and a blocked
        // worker of the global queues is one fewer for every test's tasks (see `offThePool`).
        Thread { [master, collected, reader] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n > 0 { collected.append(buffer[0..<n]); continue }
                if n < 0 && errno == EINTR { continue }
                break
            }
            reader.leave()
        }.start()
    }

    deinit { close(master) }

    /// glibc's `openpty(3)` (in libc since 2.34). Swift's Glibc module does not import `<pty.h>`, nor
    /// `posix_openpt` and friends (they sit behind `_XOPEN_SOURCE`), so it is looked up by name.
    private static func openpty(_ master: inout Int32, _ slave: inout Int32) -> Int32 {
        typealias OpenPTY = @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                            UnsafeMutablePointer<CChar>?, UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "openpty") else { errno = ENOSYS; return -1 }
        return unsafeBitCast(symbol, to: OpenPTY.self)(&master, &slave, nil, nil, nil)
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    var isRunning: Bool { process.isRunning }

    /// What it has written so far.
    var outputSoFar: String { String(decoding: collected.bytes, as: UTF8.self) }

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Types `text` on the terminal (with `inputFromTerminal`; raw mode: "\n" is Enter as the program reads it).
    func type(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress!, $0.count - 1) } }

    /// Waits until its output contains `text`, at most `timeout` seconds; false when it did not come.
    func waitForOutput(containing text: String, timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if outputSoFar.contains(text) { return true }
            if !process.isRunning { return outputSoFar.contains(text) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Waits for the exit (terminating it after `timeout` seconds) and returns what it wrote.
    func wait(timeout: Double = 60) async -> Result {
        await offThePool { self.waitBlocking(timeout: timeout) }
    }

    private func waitBlocking(timeout: Double) -> Result {
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
        _ = reader.wait(timeout: .now() + 10)
        return Result(status: process.terminationStatus, output: outputSoFar)
    }

    /// Runs to the end and returns what it wrote.
    static func run(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil,
                    timeout: Double = 60) async throws -> Result {
        try await PwrecordOnTerminal(arguments, environment: environment, in: folder).wait(timeout: timeout)
    }
}

struct TerminalError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Bytes read from the terminal, appended by the reader thread.
final class TerminalOutput: @unchecked Sendable {
    private var data: [UInt8] = []
    private let lock = NSLock()
    func append(_ bytes: ArraySlice<UInt8>) { lock.lock(); data += bytes; lock.unlock() }
    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return data }
}
