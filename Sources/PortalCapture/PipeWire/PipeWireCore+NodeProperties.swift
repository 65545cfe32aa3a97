import CPipeWire
import Glibc

extension PipeWireCore {
    /// All properties of node `id`, from its info (`pw_registry_bind` + `pw_node_events.info`). The registry's
    /// `global` event carries only a few keys; the info has them all (e.g. `audio.channels` of an ALSA
    /// source). Blocks the calling thread for one round trip (at most `timeoutSeconds`); must not be called
    /// on the loop thread.
    public func nodeProperties(id: UInt32, timeoutSeconds: Int = 1) throws(PipeWireError) -> [String: String] {
        if pw_thread_loop_in_thread(threadLoop) { throw .invalidArgument("nodeProperties called on the PipeWire loop thread") }
        guard node(id: id) != nil else { throw .invalidArgument("no node with id \(id) in the registry") }
        pw_thread_loop_lock(threadLoop)
        defer { pw_thread_loop_unlock(threadLoop) }
        guard let registry, core != nil else { throw .notConnected }
        guard let proxy = pw_registry_bind(registry, id, "PipeWire:Interface:Node", UInt32(PW_VERSION_NODE), 0) else {
            throw .invalidArgument("cannot bind node \(id)")
        }
        let request = NodeInfoRequest(threadLoop: threadLoop)
        _ = cpw_node_add_listener(OpaquePointer(proxy), request.hook, request.events, Unmanaged.passUnretained(request).toOpaque())
        var deadline = timespec()
        _ = pw_thread_loop_get_time(threadLoop, &deadline, Int64(timeoutSeconds) * 1_000_000_000)
        while request.properties == nil {
            // Releases the lock while waiting; the info callback signals.
            if pw_thread_loop_timed_wait_full(threadLoop, &deadline) != 0 { break }
        }
        spa_hook_remove(request.hook)
        pw_proxy_destroy(OpaquePointer(proxy))
        guard let properties = request.properties else { throw .timedOut("the info of node \(id)") }
        return properties
    }

    /// The global id of the node a target names, from the registry (`.object` matches `node.name` or
    /// `object.serial`); nil for `.default` or an unknown node.
    public func nodeID(for target: PipeWireTarget) -> UInt32? {
        switch target {
        case .default: nil
        case .node(let id): id
        case .object(let name): nodes.first { $0.name == name || $0.serial.map(String.init) == name }?.id
        }
    }
}

/// One pending `pw_node_events.info`; touched only with the loop lock held.
private final class NodeInfoRequest {
    let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    let events = UnsafeMutablePointer<pw_node_events>.allocate(capacity: 1)
    let threadLoop: OpaquePointer
    var properties: [String: String]?

    init(threadLoop: OpaquePointer) {
        self.threadLoop = threadLoop
        hook.initialize(to: spa_hook())
        events.initialize(to: pw_node_events())
        events.pointee.version = UInt32(PW_VERSION_NODE_EVENTS)
        events.pointee.info = { data, info in
            let request = Unmanaged<NodeInfoRequest>.fromOpaque(data!).takeUnretainedValue()
            guard let info, request.properties == nil else { return }
            request.properties = PipeWireCore.dictionary(UnsafePointer(info.pointee.props))
            pw_thread_loop_signal(request.threadLoop, false)
        }
    }

    deinit {
        hook.deallocate()
        events.deallocate()
    }
}
