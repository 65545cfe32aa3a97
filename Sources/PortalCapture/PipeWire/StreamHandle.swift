import CPipeWire
import Dispatch
import Glibc
import Synchronization

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
///
/// Callbacks reach the owner through a weak reference read under a lock: `process` of a
/// `PW_STREAM_FLAG_RT_PROCESS` stream runs on the data thread while the owner may be detaching or going away
/// on another, and then finds nil instead of a freed object. Each callback holds the owner strongly while it
/// runs, so an owner can be released last inside its own callback: its teardown then runs on that thread
/// (see `destroyElsewhere`).
final class StreamHandle: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `stream` is set in init and cleared in `destroy()`, which runs with the
    // loop lock held (or on a thread that alone holds the handle); `owner` is a Mutex; the hook and event
    // table are written once in init; `cacheWarmer` is thread-safe.
    private let owner: Mutex<WeakOwner>
    private(set) var stream: OpaquePointer?
    /// What `process` touches, prefetched first thing there (see `CacheWarmer`); the owner fills it.
    let cacheWarmer = CacheWarmer()
    private let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    private let events = UnsafeMutablePointer<pw_stream_events>.allocate(capacity: 1)

    /// `pw_stream_new(core, name, props)` and `pw_stream_add_listener`.
    private struct WeakOwner: @unchecked Sendable {
        // Invariant: only read and written under the Mutex; the owner's methods are themselves thread-safe.
        weak var value: (any StreamHandleOwner)?
    }

    init(core: OpaquePointer, name: String, properties: [String: String], owner: any StreamHandleOwner) throws(PipeWireError) {
        self.owner = Mutex(WeakOwner(value: owner))
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
        events.pointee.process = { data in
            let handle = StreamHandle.handle(data)
            handle.cacheWarmer.warm()
            handle.currentOwner?.streamProcess()
        }
        pw_stream_add_listener(stream, hook, events, Unmanaged.passUnretained(self).toOpaque())
    }

    private static func handle(_ data: UnsafeMutableRawPointer?) -> StreamHandle {
        Unmanaged<StreamHandle>.fromOpaque(data!).takeUnretainedValue()
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> (any StreamHandleOwner)? {
        handle(data).currentOwner
    }

    /// The owner, held strongly for the caller's callback; nil once detached.
    private var currentOwner: (any StreamHandleOwner)? { owner.withLock { $0.value } }

    /// Stops forwarding callbacks (the owner is going away) without destroying the stream yet.
    func detach() { owner.withLock { $0.value = nil } }

    /// For a teardown on the data thread (inside `process` of an RT stream, e.g. the owner released last
    /// there): detaches now, and destroys the stream on another thread, which takes the loop lock (the data
    /// thread must not wait for it: the loop thread may be waiting for the data thread in a blocking invoke)
    /// and runs `before` and the destroy under it; `pw_stream_destroy` there waits for this `process` to
    /// return. `then` runs after, without the lock.
    func destroyElsewhere(core: PipeWireCore, before: @escaping @Sendable () -> Void = {},
                          then: @escaping @Sendable () -> Void = {}) {
        detach()
        DispatchQueue.global().async { [self] in
            core.withLock {
                before()
                destroy()
            }
            then()
        }
    }

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
        detach()
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
