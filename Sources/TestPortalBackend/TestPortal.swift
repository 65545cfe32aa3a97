import Foundation
import Synchronization
import PortalTestSupport

/// The test portal backend: one session-bus connection owning `org.freedesktop.impl.portal.desktop.pwrecordtest`,
/// one PipeWire connection for the stream nodes, the test microphone and the test speaker, and the shared state every D-Bus
/// handler works on. Handlers run on the bus connection's queue; the state sits in a `Mutex`, and PipeWire
/// and D-Bus calls are made outside the lock.
final class TestPortal: Sendable {
    static let busName = "org.freedesktop.impl.portal.desktop.pwrecordtest"
    static let objectPath = DBusObjectPath(constant: "/org/freedesktop/portal/desktop")

    let bus: DBusConnection
    let pipewire: PipeWireCore
    let state: Mutex<BackendState>
    let screenshots: ScreenshotFiles
    private let microphone: Mutex<AudioProducerStream?> = Mutex(nil)
    private let speaker: Mutex<TestSpeaker?> = Mutex(nil)

    private init(bus: DBusConnection, pipewire: PipeWireCore, streamOptions: StreamOptions) {
        self.bus = bus
        self.pipewire = pipewire
        state = Mutex(BackendState(streamOptions: streamOptions))
        screenshots = ScreenshotFiles(environment: ProcessInfo.processInfo.environment)
    }

    /// Connects to the session bus and PipeWire, starts the test microphone and speaker, exports every interface and
    /// only then owns the bus name (the frontend reads our properties once, when it starts).
    static func start(streamOptions: StreamOptions) async throws(BackendError) -> TestPortal {
        let bus: DBusConnection
        do { bus = try DBusConnection.session() } catch { throw .bus(error) }
        let pipewire: PipeWireCore
        do { pipewire = try PipeWireCore(name: "pwrecord-test-portal") } catch { throw .pipeWire(error) }
        let portal = TestPortal(bus: bus, pipewire: pipewire, streamOptions: streamOptions)
        do {
            let mic = try await TestMicrophone.start(on: portal.pipewire)
            portal.microphone.withLock { $0 = mic }
            let speaker = try await TestSpeaker.start(on: portal.pipewire)
            portal.speaker.withLock { $0 = speaker }
        } catch { throw .pipeWire(error) }
        do {
            try portal.bus.export([ScreenCastBackend(portal: portal).interface, ScreenshotBackend(portal: portal).interface,
                                   AccessBackend(portal: portal).interface], at: objectPath)
            try portal.bus.export([ControlInterface(portal: portal).interface], at: ControlInterface.objectPath)
            try await portal.bus.requestName(busName)
        } catch { throw .bus(error) }
        return portal
    }

    // MARK: Answering portal calls

    /// The common start of every portal method: remembers `options` for `LastOptions` and applies a scripted
    /// answer. Returns true when the method should go on normally; false when the call was already answered
    /// (declined / failed) or parked (never answer).
    func begin(_ method: PortalMethod, _ call: DBusMethodCall, handle: DBusObjectPath, options: DBusVardict) -> Bool {
        let scripted = state.withLock { s in
            s.lastOptions[method] = options
            return s.responses.take(for: method)
        }
        BackendLog.write("\(method.rawValue) \(handle) \(options)" + (scripted.map { " -> scripted \($0)" } ?? ""))
        switch scripted {
        case nil, .normal?:
            return true
        case .declined?:
            respond(call, 1)
        case .failed?:
            respond(call, 2)
        case .neverAnswer?:
            park(call, method: method, handle: handle)
        }
        return false
    }

    /// Replies `(u response, a{sv} results)`: the frontend forwards it to the client as `Response`.
    func respond(_ call: DBusMethodCall, _ response: UInt32, _ results: DBusVardict = [:]) {
        do {
            try call.reply([.uint32(response), results.dbusValue])
        } catch {
            BackendLog.write("cannot answer \(call.member) (\(call.path)): \(error)")
        }
    }

    /// Answers a call whose arguments could not be read with an error reply.
    func reject(_ call: DBusMethodCall, _ error: DBusError) {
        BackendLog.write("\(call.member): \(error)")
        try? call.reply(error: error)
    }

    func countDialog() {
        state.withLock { $0.dialogsShown += 1 }
    }

    // MARK: Parked requests

    private func park(_ call: DBusMethodCall, method: PortalMethod, handle: DBusObjectPath) {
        state.withLock { $0.parkedRequests[handle] = BackendRequest(handle: handle, method: method, call: call) }
        do {
            try bus.export([BackendRequest.interface(portal: self)], at: handle)
        } catch {
            BackendLog.write("cannot export the request object \(handle): \(error)")
        }
    }

    /// `Request.Close`: forgets a parked call without answering it. False when none is parked at `handle`.
    func dropRequest(_ handle: DBusObjectPath) -> Bool {
        guard state.withLock({ $0.parkedRequests.removeValue(forKey: handle) }) != nil else { return false }
        bus.unexport(handle)
        return true
    }

    // MARK: Sessions

    /// Creates a session and exports its object at `path`. False when one already lives there.
    func openSession(at path: DBusObjectPath, appID: String) -> Bool {
        let created = state.withLock { s -> Bool in
            guard s.sessions[path] == nil else { return false }
            s.sessionSerial += 1
            s.sessionsCreated += 1
            s.sessions[path] = BackendSession(path: path, appID: appID, number: s.sessionSerial)
            return true
        }
        guard created else { return false }
        do {
            try bus.export([BackendSession.interface(portal: self)], at: path)
        } catch {
            BackendLog.write("cannot export the session object \(path): \(error)")
            _ = state.withLock { $0.sessions.removeValue(forKey: path) }
            return false
        }
        return true
    }

    /// Ends a session: its PipeWire nodes are destroyed, its object unexported, and with `emitClosed`
    /// `org.freedesktop.impl.portal.Session.Closed` is emitted on its path. False when there is no such session.
    @discardableResult
    func closeSession(_ path: DBusObjectPath, emitClosed: Bool) -> Bool {
        guard let session = state.withLock({ $0.sessions.removeValue(forKey: path) }) else { return false }
        for stream in session.streams { stream.stop() }
        bus.unexport(path)
        if emitClosed {
            do {
                try bus.emitSignal(path: path, interface: BackendSession.interfaceName, member: "Closed")
            } catch {
                BackendLog.write("cannot emit Closed on \(path): \(error)")
            }
        }
        BackendLog.write("session \(path) closed (\(session.streams.count) streams)" + (emitClosed ? ", Closed emitted" : ""))
        return true
    }

    /// Closes every live session (`CloseSessions`, and at exit without signals).
    func closeAllSessions(emitClosed: Bool) {
        for path in state.withLock({ Array($0.sessions.keys) }) { closeSession(path, emitClosed: emitClosed) }
    }

    /// Every stream of every live session.
    var liveStreams: [SessionStream] {
        state.withLock { $0.sessions.values.flatMap(\.streams) }
    }

    // MARK: Shutdown

    /// Ends everything in order: sessions (nodes destroyed), the microphone, the speaker, PipeWire, the bus; removes the
    /// screenshot directory unless it lies in the desktop's state dir (`stop` removes that).
    func shutdown() {
        closeAllSessions(emitClosed: false)
        microphone.withLock { $0?.stop(); $0 = nil }
        speaker.withLock { $0?.stop(); $0 = nil }
        pipewire.close()
        bus.close()
        screenshots.removeIfPrivate()
    }
}

extension DBusObjectPath {
    /// A path written in this source: it is valid by construction, so a mistake is a programming error.
    init(constant: StaticString) {
        do { try self.init("\(constant)") } catch { preconditionFailure("bad constant object path \(constant): \(error)") }
    }
}
