import CPipeWire
import Dispatch
import Glibc
import Synchronization

/// Told by a `PipeWireCore` about connection-wide events. Called on the loop thread, with the loop lock held.
protocol PipeWireCoreObserver: AnyObject {
    /// The connection failed (`pw_core_events.error` on `PW_ID_CORE`, e.g. -32 when the daemon dies).
    func coreFailed(res: Int32, message: String)
    /// `close()` is about to disconnect: destroy streams now.
    func coreWillClose()
}

/// A connection to a PipeWire daemon: a `pw_thread_loop` running a `pw_context` with one `pw_core`, plus a
/// registry that tracks the nodes the connection can see.
///
/// Threading: all PipeWire callbacks of this core and of its streams run on the core's loop thread (named
/// after `name`), the "data thread". Public methods may be called from any thread except where noted; they
/// take the loop lock (`pw_thread_loop_lock`, recursive) around every C call.
///
/// Teardown: `close()` destroys the streams (they end with `.stopped`) and disconnects (`pw_core_disconnect`).
/// The loop thread and context stop and are freed when the last reference goes (`pw_thread_loop_stop`,
/// `pw_context_destroy`, `pw_thread_loop_destroy`, in that order, never on the loop thread itself). Streams
/// keep their core alive.
public final class PipeWireCore: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `core`, `registry` and `observers` are only touched with the loop
    // lock held (callbacks run with it held); `state` is a Mutex; everything else is immutable.
    let threadLoop: OpaquePointer
    let loop: UnsafeMutablePointer<pw_loop>
    private let context: OpaquePointer
    /// The context's data loop (`pw_context_get_data_loop`): `process` of `PW_STREAM_FLAG_RT_PROCESS` streams.
    private let dataLoop: OpaquePointer?
    private(set) var core: OpaquePointer?
    private(set) var registry: OpaquePointer?
    private var observers: [ObjectIdentifier: WeakObserver] = [:]
    private var deferred: [() -> Void] = []
    private var deferredSource: UnsafeMutablePointer<spa_source>?
    private let coreHook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let coreEvents = UnsafeMutablePointer<pw_core_events>.allocate(capacity: 1)
    private let registryHook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let registryEvents = UnsafeMutablePointer<pw_registry_events>.allocate(capacity: 1)
    private let state = Mutex(State())
    private let continuation: AsyncStream<PipeWireCoreEvent>.Continuation

    /// Core-wide events (errors, nodes appearing and leaving). Finishes when the core is closed.
    public let events: AsyncStream<PipeWireCoreEvent>

    private struct State {
        var closed = false
        var failure: PipeWireError?
        var nodes: [UInt32: PipeWireNodeInfo] = [:]
    }

    private struct WeakObserver {
        weak var object: (any PipeWireCoreObserver)?
    }

    /// Connects with `pw_context_connect` to the daemon whose socket is `remote` (`remote.name`, a name in
    /// `$XDG_RUNTIME_DIR`), or by default to `$PIPEWIRE_REMOTE`, else `pipewire-0`.
    public convenience init(name: String = "pwrecord", remote: String? = nil) throws(PipeWireError) {
        try self.init(name: name, fileDescriptor: nil, remote: remote)
    }

    /// Connects through an fd from `org.freedesktop.portal.ScreenCast.OpenPipeWireRemote` with
    /// `pw_context_connect_fd`. Ownership of `fd` passes to this call: the connection closes it (also when
    /// the connection fails; only if PipeWire cannot even allocate the core may it stay open).
    public convenience init(connectingTo fd: Int32, name: String = "pwrecord") throws(PipeWireError) {
        guard fd >= 0 else { throw .invalidArgument("file descriptor \(fd)") }
        try self.init(name: name, fileDescriptor: fd, remote: nil)
    }

    private init(name: String, fileDescriptor: Int32?, remote: String?) throws(PipeWireError) {
        let parts = try Self.connect(name: name, fileDescriptor: fileDescriptor, remote: remote)   // returns with the lock held
        threadLoop = parts.threadLoop
        loop = parts.loop
        context = parts.context
        dataLoop = pw_context_get_data_loop(parts.context)
        core = parts.core
        (events, continuation) = AsyncStream.makeStream(of: PipeWireCoreEvent.self, bufferingPolicy: .bufferingNewest(256))
        installListeners()
        pw_thread_loop_unlock(threadLoop)
    }

    private struct Parts { var threadLoop: OpaquePointer; var loop: UnsafeMutablePointer<pw_loop>; var context: OpaquePointer; var core: OpaquePointer }

    /// Creates the loop and context, starts the loop, locks it and connects. On success the lock is held.
    private static func connect(name: String, fileDescriptor: Int32?, remote: String?) throws(PipeWireError) -> Parts {
        PipeWireLibrary.ensureInitialized()
        guard let threadLoop = pw_thread_loop_new(name, nil) else {
            let err = errno
            if let fd = fileDescriptor { Glibc.close(fd) }
            throw .loopCreationFailed(function: "pw_thread_loop_new", errno: err)
        }
        let loop = pw_thread_loop_get_loop(threadLoop)!
        guard let context = pw_context_new(loop, nil, 0) else {
            let err = errno
            pw_thread_loop_destroy(threadLoop)
            if let fd = fileDescriptor { Glibc.close(fd) }
            throw .loopCreationFailed(function: "pw_context_new", errno: err)
        }
        let started = pw_thread_loop_start(threadLoop)
        guard started >= 0 else {
            pw_context_destroy(context)
            pw_thread_loop_destroy(threadLoop)
            if let fd = fileDescriptor { Glibc.close(fd) }
            throw .loopCreationFailed(function: "pw_thread_loop_start", errno: -started)
        }
        pw_thread_loop_lock(threadLoop)
        // pw_context_connect_fd owns the fd from here on, on success and on failure.
        var props: UnsafeMutablePointer<pw_properties>?   // owned by pw_context_connect
        if let remote, let p = pw_properties_new_string("") {
            pw_properties_set(p, PW_KEY_REMOTE_NAME, remote)
            props = p
        }
        let core = fileDescriptor.map { pw_context_connect_fd(context, $0, nil, 0) } ?? pw_context_connect(context, props, 0)
        guard let core else {
            let err = errno
            pw_thread_loop_unlock(threadLoop)
            pw_thread_loop_stop(threadLoop)
            pw_context_destroy(context)
            pw_thread_loop_destroy(threadLoop)
            throw .connectionFailed(errno: err)
        }
        return Parts(threadLoop: threadLoop, loop: loop, context: context, core: core)
    }

    private func installListeners() {
        guard let core else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        coreHook.initialize(to: spa_hook())
        coreEvents.initialize(to: pw_core_events())
        coreEvents.pointee.version = UInt32(PW_VERSION_CORE_EVENTS)
        coreEvents.pointee.error = { data, id, seq, res, message in
            let this = Unmanaged<PipeWireCore>.fromOpaque(data!).takeUnretainedValue()
            this.onError(id: id, seq: seq, res: res, message: message.map { String(cString: $0) } ?? "")
        }
        _ = cpw_core_add_listener(core, coreHook, coreEvents, me)

        registryHook.initialize(to: spa_hook())
        registryEvents.initialize(to: pw_registry_events())
        registryEvents.pointee.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        registryEvents.pointee.global = { data, id, _, type, _, props in
            guard let type, String(cString: type) == "PipeWire:Interface:Node" else { return }
            let this = Unmanaged<PipeWireCore>.fromOpaque(data!).takeUnretainedValue()
            this.onNodeAdded(PipeWireNodeInfo(id: id, properties: PipeWireCore.dictionary(props)))
        }
        registryEvents.pointee.global_remove = { data, id in
            Unmanaged<PipeWireCore>.fromOpaque(data!).takeUnretainedValue().onGlobalRemoved(id: id)
        }
        deferredSource = cpw_loop_add_event(loop, { data, _ in
            Unmanaged<PipeWireCore>.fromOpaque(data!).takeUnretainedValue().runDeferred()
        }, me)
        if let registry = pw_core_get_registry(core, UInt32(PW_VERSION_REGISTRY), 0) {
            self.registry = registry
            _ = cpw_registry_add_listener(registry, registryHook, registryEvents, me)
        }
    }

    static func dictionary(_ dict: UnsafePointer<spa_dict>?) -> [String: String] {
        guard let dict, let items = dict.pointee.items else { return [:] }
        var result: [String: String] = [:]
        for i in 0..<Int(dict.pointee.n_items) {
            guard let key = items[i].key, let value = items[i].value else { continue }
            result[String(cString: key)] = String(cString: value)
        }
        return result
    }

    // MARK: callbacks (loop thread, lock held)

    private func onError(id: UInt32, seq: Int32, res: Int32, message: String) {
        continuation.yield(.error(id: id, seq: seq, res: res, message: message))
        guard id == PW_ID_CORE else { return }
        state.withLock { if $0.failure == nil { $0.failure = .coreError(id: id, res: res, message: message) } }
        for observer in observers.values.compactMap(\.object) { observer.coreFailed(res: res, message: message) }
    }

    private func onNodeAdded(_ node: PipeWireNodeInfo) {
        state.withLock { $0.nodes[node.id] = node }
        continuation.yield(.nodeAdded(node))
    }

    private func onGlobalRemoved(id: UInt32) {
        let removed = state.withLock { $0.nodes.removeValue(forKey: id) != nil }
        if removed { continuation.yield(.nodeRemoved(id: id)) }
    }

    private func runDeferred() {
        let work = deferred
        deferred = []
        work.forEach { $0() }
    }

    // MARK: public API

    /// Whether `close()` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The error that broke the connection (a core error on `PW_ID_CORE`), if any.
    public var failure: PipeWireError? { state.withLock { $0.failure } }

    /// The nodes the registry announced so far (only those this connection may see: with a portal fd, the
    /// streams of the session).
    public var nodes: [PipeWireNodeInfo] { state.withLock { Array($0.nodes.values) }.sorted { $0.id < $1.id } }

    /// The node with global id `id`, if the registry announced it.
    public func node(id: UInt32) -> PipeWireNodeInfo? { state.withLock { $0.nodes[id] } }

    /// Waits until a node matching `predicate` is in the registry.
    public func waitForNode(timeout: Duration = .seconds(5),
                            where predicate: @Sendable (PipeWireNodeInfo) -> Bool) async throws(PipeWireError) -> PipeWireNodeInfo {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let found = nodes.first(where: predicate) { return found }
            if let failure { throw failure }
            if isClosed { throw .notConnected }
            if clock.now >= deadline { throw .timedOut("a matching PipeWire node") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("a matching PipeWire node (cancelled)") }
        }
    }

    /// Destroys this core's streams (each ends with `.stopped`) and disconnects from the daemon. Idempotent.
    /// The loop thread itself stops when the last reference to the core goes away.
    public func close() {
        let first = state.withLock { s in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        pw_thread_loop_lock(threadLoop)
        let toClose = observers.values.compactMap(\.object)
        observers = [:]
        for observer in toClose { observer.coreWillClose() }
        runDeferred()
        if let deferredSource {
            cpw_loop_destroy_source(loop, deferredSource)
            self.deferredSource = nil
        }
        if let registry {
            spa_hook_remove(registryHook)
            pw_proxy_destroy(registry)
            self.registry = nil
        }
        if let core {
            spa_hook_remove(coreHook)
            pw_core_disconnect(core)
            self.core = nil
        }
        pw_thread_loop_unlock(threadLoop)
        continuation.finish()
    }

    deinit {
        close()
        let resources = LoopResources(threadLoop: threadLoop, context: context, hooks: [coreHook, registryHook],
                                      coreEvents: coreEvents, registryEvents: registryEvents)
        if pw_thread_loop_in_thread(threadLoop) {
            // The last reference went away on the loop thread: it cannot stop (join) itself.
            DispatchQueue.global().async { resources.destroy() }
        } else {
            resources.destroy()
        }
    }

    // MARK: internal helpers for streams

    /// Whether the caller runs on the context's data thread (`pw_data_loop_in_thread`), where a stream with
    /// `PW_STREAM_FLAG_RT_PROCESS` calls `process`: that thread must not wait for the loop lock.
    var isOnDataThread: Bool { dataLoop.map { pw_data_loop_in_thread($0) } ?? false }

    /// Runs `body` with the loop lock held (`pw_thread_loop_lock`, recursive: safe on the loop thread).
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pw_thread_loop_lock(threadLoop)
        defer { pw_thread_loop_unlock(threadLoop) }
        return try body()
    }

    /// Runs `body` on the loop thread after the current callback returns (a `pw_loop_add_event` source),
    /// e.g. to destroy a stream from inside its own callback. Call with the loop lock held. After `close()`,
    /// runs `body` at once.
    func deferOnLoop(_ body: @escaping () -> Void) {
        guard let deferredSource else { body(); return }
        deferred.append(body)
        _ = cpw_loop_signal_event(loop, deferredSource)
    }

    /// Registers `observer` for connection-wide events. Call with the loop lock held.
    func addObserver(_ observer: any PipeWireCoreObserver) {
        observers[ObjectIdentifier(observer)] = WeakObserver(object: observer)
    }

    /// Call with the loop lock held.
    func removeObserver(_ observer: any PipeWireCoreObserver) {
        observers.removeValue(forKey: ObjectIdentifier(observer))
    }
}

/// The loop-side resources of a core, destroyed in the order PipeWire requires, off the loop thread.
private struct LoopResources: @unchecked Sendable {
    // Invariant: used once, by one thread, after every user of the loop is gone.
    let threadLoop: OpaquePointer
    let context: OpaquePointer
    let hooks: [UnsafeMutablePointer<spa_hook>]
    let coreEvents: UnsafeMutablePointer<pw_core_events>
    let registryEvents: UnsafeMutablePointer<pw_registry_events>

    func destroy() {
        pw_thread_loop_stop(threadLoop)
        pw_context_destroy(context)
        pw_thread_loop_destroy(threadLoop)
        hooks.forEach { $0.deallocate() }
        coreEvents.deallocate()
        registryEvents.deallocate()
    }
}
