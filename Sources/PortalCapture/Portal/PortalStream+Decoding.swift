/// Reading a stream from the wire: `(u a{sv})`, node id and properties. Every property is optional, but one that is
/// present with the wrong type is an error naming it (`field 1 / key 'size' / field 0: expected i, got s`).
extension PortalStream: DBusDecodable {
    public static var dbusType: DBusType { .structure([.uint32, .vardict]) }

    /// The largest side a stream's announced size may have (PipeWire's video sizes stop at 16384).
    static let largestSide: Int32 = 65_536

    public init(dbusValue: DBusValue) throws(DBusError) {
        let nodeID = try dbusValue.field(0, as: UInt32.self)
        let properties = try dbusValue.field(1, as: DBusVardict.self)
        do throws(DBusError) {
            let position = try properties.valueIfPresent("position", as: Int32Pair.self)
            let size = try properties.valueIfPresent("size", as: Int32Pair.self)
            if let size, !(1...Self.largestSide).contains(size.first) || !(1...Self.largestSide).contains(size.second) {
                throw DBusError.malformed(path: DBusValuePath([.key("size")]),
                                          reason: "a stream of \(size.first)x\(size.second): each side must be 1 to \(Self.largestSide)")
            }
            let sourceType = try properties.valueIfPresent("source_type", as: UInt32.self)
            self.init(nodeID: nodeID,
                      position: position.map { (x: $0.first, y: $0.second) },
                      size: size.map { (width: $0.first, height: $0.second) },
                      sourceType: sourceType.map(SourceTypes.init(rawValue:)),
                      id: try properties.valueIfPresent("id", as: String.self),
                      mappingID: try properties.valueIfPresent("mapping_id", as: String.self),
                      pipewireSerial: try properties.valueIfPresent("pipewire-serial", as: UInt64.self))
        } catch {
            throw error.prefixed(.field(1))
        }
    }
}

/// A `(ii)` struct: a stream's position or size.
private struct Int32Pair: DBusDecodable {
    static var dbusType: DBusType { .structure([.int32, .int32]) }
    let first: Int32
    let second: Int32

    init(dbusValue: DBusValue) throws(DBusError) {
        let fields = try dbusValue.structFields()
        guard fields.count == 2 else {
            throw .malformed(path: [], reason: "expected (ii), got \(dbusValue.unwrappingVariants.type)")
        }
        first = try dbusValue.field(0, as: Int32.self)
        second = try dbusValue.field(1, as: Int32.self)
    }
}
