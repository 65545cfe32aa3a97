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
