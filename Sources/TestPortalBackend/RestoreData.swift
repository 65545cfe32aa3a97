import PortalCapture

/// The `restore_data` `(suv)` this backend returns from `Start` when asked to persist, and accepts back in
/// `SelectSources`: `("pwrecordtest", 1, <{id: s, app_id: s, sources: as}>)`. The frontend turns it into a
/// `restore_token` for the client and hands it back when the client presents that token.
struct RestoreData: Sendable, Equatable {
    static let vendor = "pwrecordtest"
    static let version: UInt32 = 1

    /// A random id, remembered by the backend that issued it.
    var id: String
    var appID: String
    var sources: [CaptureSource]

    init(id: String, appID: String, sources: [CaptureSource]) {
        self.id = id
        self.appID = appID
        self.sources = sources
    }

    /// Reads restore data; nil when it is not ours (another vendor or version, or a shape we never issue).
    init?(_ value: DBusValue) {
        guard let fields = try? value.structFields(), fields.count == 3,
              case .string(Self.vendor) = fields[0].unwrappingVariants,
              case .uint32(Self.version) = fields[1].unwrappingVariants,
              let data = try? DBusVardict(dbusValue: fields[2]),
              let id = try? data.requireString("id"), let appID = try? data.requireString("app_id"),
              let names = try? data.value("sources", as: [String].self) else { return nil }
        let sources = names.compactMap(CaptureSource.init(id:))
        guard !sources.isEmpty, sources.count == names.count else { return nil }
        self.init(id: id, appID: appID, sources: sources)
    }

    var dbusValue: DBusValue {
        let data: DBusVardict = ["id": id, "app_id": appID, "sources": sources.map(\.id)]
        return .structure([.string(Self.vendor), .uint32(Self.version), .variant(data.dbusValue)])
    }
}
