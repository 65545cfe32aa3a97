import Foundation

/// One headless test desktop made by `scripts/test-desktop start`, seen from a test: where its state lives,
/// how to reach its private bus and PipeWire, and which processes the script recorded as started.
struct RunningDesktop: Sendable {
    /// The state directory (`PWRECORD_DESKTOP_DIR`): logs, the recorded PIDs, configuration, `run/`.
    let stateDirectory: String

    var runtimeDirectory: String { stateDirectory + "/run" }
    var busAddress: String { "unix:path=\(runtimeDirectory)/bus" }

    /// The variables a client of this desktop needs, as `scripts/test-desktop env` prints them.
    var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory, "PIPEWIRE_RUNTIME_DIR": runtimeDirectory,
         "DBUS_SESSION_BUS_ADDRESS": busAddress]
    }

    /// The desktop this test process was started on (`eval "$(scripts/test-desktop start)"`), if any.
    static func current() -> RunningDesktop? {
        guard let dir = ProcessInfo.processInfo.environment["PWRECORD_DESKTOP_DIR"], !dir.isEmpty else { return nil }
        return RunningDesktop(stateDirectory: dir)
    }

    /// `scripts/test-desktop`, found from this source file's place in the repository.
    static var script: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }   // Desktop, PortalCaptureTests, Tests, file
        return url.appendingPathComponent("scripts/test-desktop").path
    }

    /// Runs `scripts/test-desktop ARGS`, bounded by `timeout` so a hung script fails the test instead of
    /// hanging it.
    static func runScript(_ arguments: [String], seconds: Int = 60) -> ToolRun {
        ToolRun.run("/usr/bin/timeout", [String(seconds), script] + arguments)
    }

    /// Parses the `export VAR='value'` lines `start` prints.
    static func parseExports(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let eq = assignment.firstIndex(of: "=") else { continue }
            var value = assignment[assignment.index(after: eq)...]
            if value.hasPrefix("'") && value.hasSuffix("'") && value.count >= 2 {
                value = value.dropFirst().dropLast()
            }
            result[String(assignment[..<eq])] = String(value)
        }
        return result
    }

    /// Starts a desktop of its own for `body` (for a test that stops or breaks parts of it, which would harm
    /// suites running on the shared one) and stops it afterwards, also when `body` throws. The script runs
    /// are blocking waits for a child: on a thread of their own, never on the test pool.
    static func withDesktopOfItsOwn(_ body: (RunningDesktop) async throws -> Void) async throws {
        let start = await onThread { runScript(["start", "--quiet"]) }
        guard let dir = parseExports(start.stdout)["PWRECORD_DESKTOP_DIR"] else {
            throw DesktopStartFailure(status: start.status, stderr: start.stderr)
        }
        do {
            try await body(RunningDesktop(stateDirectory: dir))
        } catch {
            _ = await onThread { runScript(["stop", dir]) }
            throw error
        }
        _ = await onThread { runScript(["stop", dir]) }
    }

    /// `scripts/test-desktop start` failed: its status and what it printed.
    struct DesktopStartFailure: Error, CustomStringConvertible {
        let status: Int32
        let stderr: String
        var description: String { "scripts/test-desktop start failed (\(status)): \(stderr)" }
    }

    // MARK: The bus

    /// A method call on the desktop's bus with `/usr/bin/dbus-send --print-reply=literal`.
    func busCall(destination: String, path: String, method: String, _ arguments: [String] = []) -> ToolRun {
        ToolRun.run("/usr/bin/timeout", ["5", "/usr/bin/dbus-send", "--bus=\(busAddress)", "--print-reply=literal",
                                         "--dest=\(destination)", path, method] + arguments)
    }

    /// `org.freedesktop.DBus.NameHasOwner(name)` on this desktop's bus.
    func nameHasOwner(_ name: String) -> Bool {
        let reply = busCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                            method: "org.freedesktop.DBus.NameHasOwner", ["string:\(name)"])
        return reply.status == 0 && reply.stdout.contains("boolean true")
    }

    /// The PID of the process owning `name`, from `org.freedesktop.DBus.GetConnectionUnixProcessID`.
    func ownerPID(of name: String) -> Int32? {
        let reply = busCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                            method: "org.freedesktop.DBus.GetConnectionUnixProcessID", ["string:\(name)"])
        guard reply.status == 0 else { return nil }
        return reply.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).last.flatMap { Int32($0) }
    }

    // MARK: PipeWire

    /// `pw-cli ARGS` against this desktop's PipeWire, wrapped in `timeout` and with stdin from /dev/null
    /// (pw-cli spins when its stdin ends).
    func pwCli(_ arguments: [String]) -> ToolRun {
        ToolRun.run("/usr/bin/timeout", ["5", "/usr/bin/pw-cli"] + arguments, environment: clientEnvironment)
    }

    // MARK: Processes

    /// The processes `start` recorded (`pids`, one "name pid starttime" line each).
    func recordedProcesses() throws -> [RecordedProcess] {
        let text = try String(contentsOfFile: stateDirectory + "/pids", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let pid = Int32(fields[1]), let start = UInt64(fields[2]) else { return nil }
            return RecordedProcess(name: String(fields[0]), pid: pid, startTime: start)
        }
    }

    /// Every live process whose environment holds `XDG_RUNTIME_DIR=<this desktop's run dir>`: all that the
    /// script started and anything those spawned, recorded or not.
    func processesInItsEnvironment() -> [Int32] {
        let needle = Data("XDG_RUNTIME_DIR=\(runtimeDirectory)\0".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard ProcessStat.read(pid: pid)?.isRunning == true,
                  let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/environ") else { return false }
            defer { try? handle.close() }
            let environ = Data("\0".utf8) + handle.readAllRetryingInterrupts()
            return environ.range(of: Data("\0".utf8) + needle) != nil
        }
    }
}

/// A process `scripts/test-desktop start` recorded: its service name, PID and start time (clock ticks since
/// boot), which together name it even after the PID is reused.
struct RecordedProcess: Sendable, Equatable, CustomStringConvertible {
    var name: String
    var pid: Int32
    var startTime: UInt64

    /// True while this very process runs (a zombie has ended; a reused PID is another process).
    var isRunning: Bool {
        guard let stat = ProcessStat.read(pid: pid) else { return false }
        return stat.startTime == startTime && stat.isRunning
    }

    var description: String { "\(name) (pid \(pid))" }
}

/// The two fields of `/proc/PID/stat` the desktop tests need.
struct ProcessStat: Sendable {
    var state: Character
    var startTime: UInt64

    /// Neither a zombie nor dead.
    var isRunning: Bool { state != "Z" && state != "X" }

    static func read(pid: Int32) -> ProcessStat? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readAllRetryingInterrupts(), as: UTF8.self)
        // Fields after "(comm) "; comm itself may hold spaces and parentheses.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let start = UInt64(fields[19]) else { return nil }
        return ProcessStat(state: state, startTime: start)
    }
}
