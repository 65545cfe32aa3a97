/// What a `PipeWireCore` reports (its `events` sequence).
public enum PipeWireCoreEvent: Sendable, Equatable {
    /// `pw_core_events.error`. With `id` 0 (`PW_ID_CORE`) the whole connection failed: `res` -32
    /// ("Broken pipe") means the daemon went away. Other ids name the object (proxy) in error.
    case error(id: UInt32, seq: Int32, res: Int32, message: String)
    /// A node appeared in the registry.
    case nodeAdded(PipeWireNodeInfo)
    /// A node left the registry (`global_remove`).
    case nodeRemoved(id: UInt32)
}
