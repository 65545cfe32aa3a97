import CPipeWire
import Glibc
import Synchronization

/// A node made inside the daemon by one of its factories (`pw_core_create_object`), the way `pw-cli
/// create-node` makes one: e.g. a null audio sink, `factory` `adapter` with `factory.name =
/// support.null-audio-sink`, which the test backend uses as the desktop's speaker. The node belongs to this
/// connection: it goes when `destroy()` is called, when this object is released, or when the core closes
/// (unless `object.linger` is set; `pw_proxy_destroy` asks the daemon to destroy it).
///
/// Threading: the proxy's `bound` and `error` events arrive on the core's loop thread; every method takes the
/// loop lock around its C calls and may be called from any thread (`waitUntilReady` polls, so not from the
/// loop thread).
public final class PipeWireFactoryNode: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `proxy` and the hook are only touched with the loop lock held (the
    // proxy's events run with it held); `shared` is a Mutex; the rest is immutable.
    public let core: PipeWireCore
    public let factory: String
    public let properties: [String: String]
    private var proxy: OpaquePointer?
    private let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let proxyEvents = UnsafeMutablePointer<pw_proxy_events>.allocate(capacity: 1)
    private let shared = Mutex<(boundID: UInt32?, error: String?)>((nil, nil))

    /// Asks the daemon to create the node (`pw_core_create_object(core, factory, "PipeWire:Interface:Node",
    /// PW_VERSION_NODE, properties)`). The daemon answers later: `waitUntilReady` says whether it did.
    public init(core: PipeWireCore, factory: String = "adapter", properties: [String: String]) throws(PipeWireError) {
        self.core = core
        self.factory = factory
        self.properties = properties
        hook.initialize(to: spa_hook())
        proxyEvents.initialize(to: pw_proxy_events())
        proxyEvents.pointee.version = UInt32(PW_VERSION_PROXY_EVENTS)
        proxyEvents.pointee.bound = { data, id in
            let node = Unmanaged<PipeWireFactoryNode>.fromOpaque(data!).takeUnretainedValue()
            node.shared.withLock { $0.boundID = id }
        }
        proxyEvents.pointee.error = { data, _, res, message in
            let node = Unmanaged<PipeWireFactoryNode>.fromOpaque(data!).takeUnretainedValue()
            let text = message.map { String(cString: $0) } ?? "error \(res)"
            node.shared.withLock { if $0.error == nil { $0.error = text } }
        }
        try core.withLock { () throws(PipeWireError) in
            guard let pwCore = core.core, !core.isClosed else { throw .notConnected }
            if let failure = core.failure { throw failure }
            guard let props = pw_properties_new_string("") else { throw .invalidArgument("cannot allocate node properties") }
            defer { pw_properties_free(props) }
            for (key, value) in properties { pw_properties_set(props, key, value) }
            guard let created = pw_core_create_object(pwCore, factory, "PipeWire:Interface:Node", UInt32(PW_VERSION_NODE),
                                                      &props.pointee.dict, 0) else {
                throw .objectCreationFailed(factory: factory, message: String(cString: strerror(errno)))
            }
            proxy = OpaquePointer(created)
            pw_proxy_add_listener(proxy, hook, proxyEvents, Unmanaged.passUnretained(self).toOpaque())
            core.addObserver(self)
        }
    }

    deinit {
        destroy()
        hook.deallocate()
        proxyEvents.deallocate()
    }

    /// The node's global id once the daemon made it (the proxy's `bound` event).
    public var nodeID: UInt32? { shared.withLock { $0.boundID } }

    /// Waits until the daemon made the node and this connection's registry announced it; throws the daemon's
    /// refusal (an unknown factory, bad properties) as `objectCreationFailed`.
    public func waitUntilReady(timeout: Duration = .seconds(5)) async throws(PipeWireError) -> PipeWireNodeInfo {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (id, error) = shared.withLock { ($0.boundID, $0.error) }
            if let error { throw .objectCreationFailed(factory: factory, message: error) }
            if let id, let info = core.node(id: id) { return info }
            if let failure = core.failure { throw failure }
            if core.isClosed { throw .notConnected }
            if ContinuousClock.now >= deadline { throw .timedOut("the \(factory) node \(properties["node.name"] ?? "") to appear") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("a factory node (cancelled)") }
        }
    }

    /// Destroys the node (`pw_proxy_destroy`). Idempotent.
    public func destroy() {
        core.withLock {
            core.removeObserver(self)
            destroyLocked()
        }
    }

    private func destroyLocked() {
        guard let proxy else { return }
        spa_hook_remove(hook)
        pw_proxy_destroy(proxy)
        self.proxy = nil
    }
}

extension PipeWireFactoryNode: PipeWireCoreObserver {
    func coreFailed(res: Int32, message: String) {}

    /// The proxy must go before `pw_core_disconnect` frees it.
    func coreWillClose() { destroyLocked() }
}
