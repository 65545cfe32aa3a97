import CPipeWire
import Glibc

/// What a `StreamHandle` forwards its `pw_stream_events` to. Called on the loop thread, lock held, except
/// `streamProcess` of a stream connected with `PW_STREAM_FLAG_RT_PROCESS`: that runs on the data thread.
protocol StreamHandleOwner: AnyObject {
    func streamStateChanged(from old: PipeWireStreamState, to new: PipeWireStreamState, error: String?)
    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?)
    func streamAddBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>)
    func streamRemoveBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>)
    func streamProcess()
}

extension StreamHandleOwner {
    func streamAddBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {}
    func streamRemoveBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>) {}
}

/// One `pw_stream` with its listener (`pw_stream_add_listener`); hook and event table on the heap so their
/// addresses are stable. Create and destroy it with the loop lock held.
final class StreamHandle {
    /// The owner, or nil once detached. Unowned: the owner destroys or detaches the handle before it goes.
    private unowned(unsafe) var owner: (any StreamHandleOwner)?
    private(set) var stream: OpaquePointer?
    private let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let events = UnsafeMutablePointer<pw_stream_events>.allocate(capacity: 1)

    /// `pw_stream_new(core, name, props)` and `pw_stream_add_listener`.
    init(core: OpaquePointer, name: String, properties: [String: String], owner: any StreamHandleOwner) throws(PipeWireError) {
        self.owner = owner
        hook.initialize(to: spa_hook())
        events.initialize(to: pw_stream_events())
        guard let props = pw_properties_new_string("") else {
            throw .streamCreationFailed(errno: ENOMEM)
        }
        for (key, value) in properties { pw_properties_set(props, key, value) }
        guard let stream = pw_stream_new(core, name, props) else {   // takes ownership of props
            throw .streamCreationFailed(errno: errno)
        }
        self.stream = stream
        events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.pointee.state_changed = { data, old, new, error in
            StreamHandle.from(data)?.streamStateChanged(from: PipeWireStreamState(old), to: PipeWireStreamState(new),
                                                        error: error.map { String(cString: $0) })
        }
        events.pointee.param_changed = { data, id, param in StreamHandle.from(data)?.streamParamChanged(id: id, param: param) }
        events.pointee.add_buffer = { data, buffer in if let buffer { StreamHandle.from(data)?.streamAddBuffer(buffer) } }
        events.pointee.remove_buffer = { data, buffer in if let buffer { StreamHandle.from(data)?.streamRemoveBuffer(buffer) } }
        events.pointee.process = { data in StreamHandle.from(data)?.streamProcess() }
        pw_stream_add_listener(stream, hook, events, Unmanaged.passUnretained(self).toOpaque())
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> (any StreamHandleOwner)? {
        Unmanaged<StreamHandle>.fromOpaque(data!).takeUnretainedValue().owner
    }

    /// Stops forwarding callbacks (the owner is going away) without destroying the stream yet.
    func detach() { owner = nil }

    /// Destroys the stream now, or, when called on `core`'s loop thread (inside one of its callbacks, where
    /// a stream must not be destroyed under its own feet), detaches it now and destroys it on the next loop
    /// iteration. `then` runs after the destroy, in both cases. Returns whether it was destroyed now.
    /// Lock held.
    @discardableResult
    func destroy(on core: PipeWireCore, then: @escaping () -> Void = {}) -> Bool {
        if pw_thread_loop_in_thread(core.threadLoop) {
            detach()
            core.deferOnLoop { [self] in
                destroy()
                then()
            }
            return false
        }
        destroy()
        then()
        return true
    }

    /// `pw_stream_destroy` (disconnects first; removes the listener). Idempotent.
    func destroy() {
        owner = nil
        guard let stream else { return }
        pw_stream_destroy(stream)
        self.stream = nil
    }

    deinit {
        destroy()
        hook.deallocate()
        events.deallocate()
    }
}
