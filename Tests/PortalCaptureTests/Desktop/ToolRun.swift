import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of running a command-line tool to completion: exit status and what it printed.
/// Desktop tests use it to ask `dbus-send`, `pw-cli` and `scripts/test-desktop` about the running desktop
/// until the project's own D-Bus and PipeWire layers can do it.
///
/// Built on `posix_spawn` + `waitpid` rather than Foundation's `Process`: `Process.waitUntilExit()` was seen
/// to hang forever here when tests spawn tools from several threads at once (the child exited, unreaped),
/// and a child of `Process` inherits the spawning thread's signal mask, so services started through it
/// ignored SIGTERM. This spawns with an empty mask and default dispositions.
struct ToolRun: Sendable {
    /// The exit status, or 128 + the signal number when a signal ended the tool; 127 when it could not start.
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs `executable` with `arguments` to completion, with the test process's environment plus
    /// `environment`, stdin from /dev/null.
    static func run(_ executable: String, _ arguments: [String],
                    environment: [String: String] = [:]) -> ToolRun {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { return failure("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            return failure("pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec: a tool spawned meanwhile by another test must not inherit our write ends (it would
        // hold the pipe open and stall this read); dup2 in our child clears the flag on its 1 and 2.
        // (pipe2(O_CLOEXEC) would close the short window, but Glibc's Swift module does not export it.)
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGALRM, SIGCHLD, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            return failure("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }

        let (out, err) = drain(outPipe[0], errPipe[0])
        close(outPipe[0]); close(errPipe[0])

        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) == -1 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS are C macros Swift cannot import: decode the wait status by hand.
        let signal = waitStatus & 0x7f
        let status = signal == 0 ? (waitStatus >> 8) & 0xff : 128 + signal
        return ToolRun(status: status, stdout: String(decoding: out, as: UTF8.self),
                       stderr: String(decoding: err, as: UTF8.self))
    }

    private static func failure(_ message: String) -> ToolRun {
        ToolRun(status: 127, stdout: "", stderr: message)
    }

    /// Reads both pipes until each reports end of file, so neither can fill up and stall the tool.
    private static func drain(_ outFD: Int32, _ errFD: Int32) -> ([UInt8], [UInt8]) {
        var buffers: [[UInt8]] = [[], []]
        var fds = [pollfd(fd: outFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)]
        var chunk = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffers[index].append(contentsOf: chunk[0..<count])
                } else if count == 0 || errno != EINTR {
                    fds[index].fd = -1   // poll ignores negative fds
                }
            }
        }
        return (buffers[0], buffers[1])
    }
}
