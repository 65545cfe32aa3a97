/// A node as the core's registry announces it (`pw_registry_events.global` with type
/// `PipeWire:Interface:Node`).
public struct PipeWireNodeInfo: Sendable, Equatable, CustomStringConvertible {
    /// The global id (what the portal's `streams` carry and `pw_stream_connect` takes as target).
    public var id: UInt32
    /// `object.serial`, unique for the daemon's lifetime (what `target.object` prefers).
    public var serial: UInt64?
    /// `node.name`
    public var name: String?
    /// `media.class`, e.g. `Video/Source`, `Audio/Source`.
    public var mediaClass: String?
    /// All properties the registry announced.
    public var properties: [String: String]

    public init(id: UInt32, properties: [String: String]) {
        self.id = id
        self.properties = properties
        self.serial = properties["object.serial"].flatMap { UInt64($0) }
        self.name = properties["node.name"]
        self.mediaClass = properties["media.class"]
    }

    public var description: String { "node \(id) \(name ?? "?") (\(mediaClass ?? "?"), serial \(serial.map(String.init) ?? "?"))" }
}

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
