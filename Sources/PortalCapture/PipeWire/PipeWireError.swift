import Glibc

/// Errors of the PipeWire layer: connecting to the daemon, creating and negotiating streams, and buffers.
/// Each description says what happened and, where someone can act, what to do about it.
public enum PipeWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `pw_thread_loop_new`, `pw_context_new` or `pw_thread_loop_start` failed (out of memory, or the
    /// PipeWire client library cannot load its SPA plugins).
    case loopCreationFailed(function: String, errno: Int32)
    /// `pw_context_connect` / `pw_context_connect_fd` failed: no daemon on the socket, or the fd is not a
    /// PipeWire connection.
    case connectionFailed(errno: Int32)
    /// The core was closed (or lost) before the operation.
    case notConnected
    /// `pw_stream_new` failed.
    case streamCreationFailed(errno: Int32)
    /// `pw_stream_connect` failed.
    case streamConnectFailed(errno: Int32)
    /// A SPA pod did not fit the builder's buffer or could not be built.
    case podBuildFailed(String)
    /// A negotiated format that this layer cannot handle (e.g. a pixel format outside BGRx/RGBx/BGRA/RGBA).
    case unsupportedFormat(String)
    /// `memfd_create`, `ftruncate` or `mmap` failed while allocating producer buffers.
    case bufferAllocationFailed(function: String, errno: Int32)
    /// Invalid argument from the caller (zero size, frame rate 0, ...).
    case invalidArgument(String)
    /// A wait (node id, round trip) did not complete in time.
    case timedOut(String)
    /// The stream ended before the awaited condition was met.
    case streamEnded(PipeWireStreamEndCause)
    /// The core reported an error (`pw_core_events.error`); `res` is a negative errno (-32 = broken pipe).
    case coreError(id: UInt32, res: Int32, message: String)
    /// The daemon refused to create an object (`pw_core_create_object`: an unknown factory, bad properties).
    case objectCreationFailed(factory: String, message: String)

    public var description: String {
        switch self {
        case .loopCreationFailed(let function, let err):
            return "\(function) failed (\(PipeWireError.errnoText(err))); check that libpipewire-0.3 and its SPA plugins (pipewire package) are installed"
        case .connectionFailed(let err):
            return "cannot connect to PipeWire (\(PipeWireError.errnoText(err))); is the pipewire daemon running and XDG_RUNTIME_DIR set (socket $XDG_RUNTIME_DIR/pipewire-0)? With a portal fd, the fd must come fresh from OpenPipeWireRemote"
        case .notConnected:
            return "the PipeWire core is closed or was lost; create a new PipeWireCore (and, for the portal, a new session)"
        case .streamCreationFailed(let err):
            return "pw_stream_new failed (\(PipeWireError.errnoText(err))); the connection may have dropped: reconnect"
        case .streamConnectFailed(let err):
            return "pw_stream_connect failed (\(PipeWireError.errnoText(err))); check the target node id and that a session manager (wireplumber) runs"
        case .podBuildFailed(let what):
            return "could not build the SPA pod for \(what); this is a bug in pwrecord, please report it"
        case .unsupportedFormat(let what):
            return "unsupported format \(what); the source must offer BGRx, RGBx, BGRA or RGBA in shared memory"
        case .bufferAllocationFailed(let function, let err):
            return "\(function) failed while allocating frame buffers (\(PipeWireError.errnoText(err))); free memory or lower the resolution"
        case .invalidArgument(let what):
            return "invalid argument: \(what)"
        case .timedOut(let what):
            return "timed out waiting for \(what); is a session manager (wireplumber) running to link the nodes?"
        case .streamEnded(let cause):
            return "the stream ended: \(cause)"
        case .objectCreationFailed(let factory, let message):
            return "PipeWire could not create a node with the '\(factory)' factory: \(message); check the factory name and the node's properties (`pw-cli ls Factory`)"
        case .coreError(let id, let res, let message):
            return "PipeWire core error on object \(id): \(message) (\(PipeWireError.errnoText(-res))); \(res == -EPIPE ? "the daemon went away: restart pipewire and reconnect" : "reconnect or recreate the stream")"
        }
    }

    static func errnoText(_ err: Int32) -> String {
        guard err != 0, let s = strerror(err) else { return "errno \(err)" }
        return "\(String(cString: s)), errno \(err)"
    }
}
