import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private directory of stand-in commands (`apt-get`, `sudo`, `swift`, ...) put first on `PATH`, so a test can
/// run the repository's scripts (scripts/setup, scripts/test) for real while nothing is installed and nothing is
/// built. Each stand-in appends the command line it was given to `calls`.
struct FakeTools: Sendable {
    /// The directory: `bin/` (the stand-ins), `calls`, `tmp/` (the scripts' `TMPDIR`), anything a test adds.
    let root: URL

    /// The repository's top directory, found from this source file's place in it.
    static var repository: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }   // Desktop, PortalCaptureTests, Tests, file
        return url
    }

    init() throws {
        // Short: a test desktop started under tmp/ needs its socket paths under 107 bytes.
        root = URL(fileURLWithPath: "/tmp/pwrecord-fake-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        try "".write(to: root.appendingPathComponent("calls"), atomically: true, encoding: .utf8)
    }

    /// Writes an executable `bin/NAME` (or `PATH`, relative to the root) with a bash `body`.
    func add(_ name: String, _ body: String) throws {
        let file = root.appendingPathComponent(name.contains("/") ? name : "bin/" + name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Written through an O_CLOEXEC descriptor: a child another test spawns meanwhile must not inherit it
        // open for writing, or running the stand-in fails with ETXTBSY ("Text file busy").
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw Failure.cannotWrite(file.path, String(cString: strerror(errno))) }
        defer { close(fd) }
        let bytes = Array("#!/bin/bash\n\(body)\n".utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw Failure.cannotWrite(file.path, String(cString: strerror(errno)))
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case cannotWrite(String, String)
        var description: String {
            switch self {
            case .cannotWrite(let path, let why): "cannot write the stand-in \(path): \(why) (is /tmp writable?)"
            }
        }
    }

    /// A stand-in that only records its command line (`NAME args...`) and exits 0.
    func addRecorder(_ name: String) throws {
        try add(name, #"echo "\#(name) $*" >>"$FAKE/calls""#)
    }

    /// The command lines the stand-ins recorded, in order.
    func calls() throws -> [String] {
        try String(contentsOf: root.appendingPathComponent("calls"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    /// The text of a file under the root, nil when there is none.
    func text(_ name: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    /// The environment for a script run: the stand-ins first on `PATH`, `FAKE` naming the root, `TMPDIR` under it.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return ["PATH": root.path + "/bin:" + path, "FAKE": root.path, "TMPDIR": root.path + "/tmp"]
            .merging(extra) { _, new in new }
    }

    /// Runs `script` of the repository (e.g. `scripts/setup`) with ``environment(_:)``, bounded by `seconds`.
    func run(_ script: String, _ arguments: [String] = [], environment extra: [String: String] = [:],
             seconds: Int = 120) -> ToolRun {
        ToolRun.run("/usr/bin/timeout", [String(seconds), Self.repository.appendingPathComponent(script).path] + arguments,
                    environment: environment(extra))
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// Runs blocking `work` (a child process to completion) on a thread of its own, so the test's wait does not hold
/// one of the cooperative pool's few threads (as `offThePool` in Tests/pwrecordTests/Support does).
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
