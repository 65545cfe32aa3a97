/// One PipeWire stream a screen-cast session started: an element of the `streams` result of
/// `org.freedesktop.portal.ScreenCast.Start`, type `a(ua{sv})`.
public struct PortalStream: Sendable, Hashable, CustomStringConvertible {
    /// The PipeWire node id to connect to (through the fd from `OpenPipeWireRemote`).
    public var nodeID: UInt32
    /// `position` (ii): where a monitor sits in the compositor's space, when the backend says.
    public var position: (x: Int32, y: Int32)?
    /// `size` (ii): the stream's size in compositor coordinates, when the backend says. Window streams may change
    /// size later (GNOME): the capture layer follows PipeWire's format changes, not this.
    public var size: (width: Int32, height: Int32)?
    /// `source_type` (u), version 3: what the user picked. Advisory: xdg-desktop-portal-wlr before 0.7.1 reports 2
    /// (window) for monitors; when exactly one source type was asked for, ``ScreenCastSession`` puts that type here.
    public var sourceType: SourceTypes?
    /// `id` (s), version 4: an opaque id stable across sessions restored from the same token.
    public var id: String?
    /// `mapping_id` (s), version 5: matches input regions in the RemoteDesktop portal.
    public var mappingID: String?
    /// `pipewire-serial` (t), newer portals: the node's `object.serial`.
    public var pipewireSerial: UInt64?

    public init(nodeID: UInt32, position: (x: Int32, y: Int32)? = nil, size: (width: Int32, height: Int32)? = nil,
                sourceType: SourceTypes? = nil, id: String? = nil, mappingID: String? = nil, pipewireSerial: UInt64? = nil) {
        self.nodeID = nodeID
        self.position = position
        self.size = size
        self.sourceType = sourceType
        self.id = id
        self.mappingID = mappingID
        self.pipewireSerial = pipewireSerial
    }

    public static func == (a: PortalStream, b: PortalStream) -> Bool {
        a.nodeID == b.nodeID && a.position?.x == b.position?.x && a.position?.y == b.position?.y
            && a.size?.width == b.size?.width && a.size?.height == b.size?.height && a.sourceType == b.sourceType
            && a.id == b.id && a.mappingID == b.mappingID && a.pipewireSerial == b.pipewireSerial
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nodeID)
        hasher.combine(id)
        hasher.combine(pipewireSerial)
    }

    public var description: String {
        var parts = ["node \(nodeID)"]
        if let size { parts.append("\(size.width)x\(size.height)") }
        if let position { parts.append("at \(position.x),\(position.y)") }
        if let sourceType { parts.append("\(sourceType)") }
        if let id { parts.append("id \(id)") }
        if let pipewireSerial { parts.append("serial \(pipewireSerial)") }
        return parts.joined(separator: " ")
    }
}
