import Foundation
import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A PipeWire daemon of the test's own (socket `name` in `$XDG_RUNTIME_DIR`), so it can be killed without
/// disturbing the shared one. No session manager runs on it.
final class PrivateDaemon {
    let name: String
    private let process = Process()
    private let runtimeDir: String

    init() throws {
        runtimeDir = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/tmp"
        name = "pwrecord-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pipewire")
        var env = ProcessInfo.processInfo.environment
        env["PIPEWIRE_CORE"] = name
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var socketPath: String { runtimeDir + "/" + name }

    func waitUntilListening() async -> Bool {
        await eventually(timeout: .seconds(5)) { FileManager.default.fileExists(atPath: self.socketPath) }
    }

    /// SIGKILL, as when the daemon crashes.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: socketPath)
        try? FileManager.default.removeItem(atPath: socketPath + ".lock")
    }
}

/// Collects `PipeWireCoreEvent`s from a core's sequence.
final class CoreEventCollector: Sendable {
    private let events = Mutex<[PipeWireCoreEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ core: PipeWireCore) {
        let stream = core.events
        let t = Task { [self] in
            for await event in stream { append(event) }
        }
        task.withLock { $0 = t }
    }

    private func append(_ event: PipeWireCoreEvent) {
        events.withLock { $0.append(event) }
    }

    var received: [PipeWireCoreEvent] { events.withLock { $0 } }
}

/// Connects a unix socket to `path` and returns its fd (what `OpenPipeWireRemote` hands out).
func connectUnixSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        let bytes = Array(path.utf8.prefix(raw.count - 1))
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard rc == 0 else {
        let err = errno
        close(fd)
        throw POSIXError(.init(rawValue: err) ?? .EIO)
    }
    return fd
}

@Suite("PipeWire core connections", .enabled(if: TestDesktop.isAvailable), .serialized)
struct CoreConnectionTests {
    @Test("a core connected through a socket fd sees the daemon's nodes")
    func coreConnectsThroughFileDescriptor() async throws {
        let runtime = try #require(ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"])
        let fd = try connectUnixSocket(runtime + "/pipewire-0")
        let core = try PipeWireCore(connectingTo: fd, name: "pwrecord-test-fd")
        defer { core.close() }
        let driver = try await core.waitForNode { $0.name == "Dummy-Driver" }
        #expect(driver.serial != nil)
        #expect(core.failure == nil)
    }

    @Test("a negative fd is refused with a clear error")
    func negativeFileDescriptorIsRefused() {
        #expect(throws: PipeWireError.invalidArgument("file descriptor -1")) { try PipeWireCore(connectingTo: -1) }
    }

    @Test("connecting to a remote that does not exist fails with connectionFailed")
    func missingRemoteFails() {
        do {
            _ = try PipeWireCore(name: "pwrecord-test-missing", remote: "pwrecord-no-such-daemon-\(getpid())")
            Issue.record("connecting to a missing daemon succeeded")
        } catch {
            guard case .connectionFailed(let err) = error else { Issue.record("got \(error)"); return }
            #expect(err != 0)
            #expect(error.description.contains("pipewire"))
        }
    }

    @Test("a daemon killed mid-stream gives core error -32 and ends every stream once with it")
    func killedDaemonEndsStreams() async throws {
        let daemon = try PrivateDaemon()
        #expect(await daemon.waitUntilListening())
        let core = try PipeWireCore(name: "pwrecord-test-kill", remote: daemon.name)
        defer { core.close() }
        let coreEvents = CoreEventCollector(core)
        let producer = try VideoProducerStream(core: core, options: VideoProducerOptions(
            format: VideoFormat(pixelFormat: .bgrx, width: 64, height: 64), nodeName: "test-kill-src"), render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        let collector = FrameCollector()
        let consumer = try VideoCaptureStream(core: core, target: .node(id: node.id), eventHandler: collector.eventHandler,
                                              frameHandler: collector.frameHandler)
        defer { consumer.stop() }
        let audio = try AudioCaptureStream(core: core, handler: { _ in })
        defer { audio.stop() }

        let killedAt = ContinuousClock.now
        daemon.kill()
        let ended = await eventually(timeout: .seconds(1)) { consumer.endCause != nil && producer.endCause != nil && audio.endCause != nil }
        #expect(ended, "ended within \(ContinuousClock.now - killedAt)")
        for cause in [consumer.endCause, producer.endCause, audio.endCause] {
            guard case .coreError(let res, _)? = cause else { Issue.record("cause \(String(describing: cause))"); continue }
            #expect(res == -EPIPE)
        }
        #expect(await eventually(timeout: .seconds(1)) {
            coreEvents.received.contains { if case .error(0, _, -EPIPE, _) = $0 { true } else { false } }
        })
        guard case .coreError(0, -EPIPE, _)? = core.failure else { Issue.record("failure \(String(describing: core.failure))"); return }
        try await Task.sleep(for: .milliseconds(100))
        let ends = collector.receivedEvents.filter { if case .ended = $0 { true } else { false } }
        #expect(ends.count == 1)
        #expect(throws: PipeWireError.self) {
            try VideoCaptureStream(core: core, target: .node(id: node.id), frameHandler: { _ in })
        }
    }
}
