/// The results of `org.freedesktop.portal.ScreenCast.Start`'s Response 0, read and corrected for the backend quirks
/// known from the field (listed in docs/portal.md):
/// - **several streams for one source** (xdg-desktop-portal-kde): when `multiple` was not asked for and more than
///   one stream comes back, only the last is kept, as OBS Studio does (`plugins/linux-pipewire/screencast-portal.c`);
/// - **`source_type` 2 for monitors** (xdg-desktop-portal-wlr before 0.7.1): when exactly one source type was
///   asked for, every stream gets that type, whatever the backend says.
struct ScreenCastStartResult: Sendable, Equatable {
    /// The streams to use.
    var streams: [PortalStream]
    /// `restore_token` (s, version 4): present when persistence was asked for and granted.
    var restoreToken: String?
    /// How many streams the backend returned before the single-source correction.
    var reportedStreamCount: Int

    init(results: DBusVardict, requested: ScreenCastOptions) throws(PortalError) {
        let method = "Start"
        var streams: [PortalStream]
        do {
            streams = try results.value("streams", as: [PortalStream].self)
            restoreToken = try results.valueIfPresent("restore_token", as: String.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "results")
        }
        guard !streams.isEmpty else {
            throw .malformedReply(method: method, key: "results / key 'streams'", reason: "no stream in a successful Start")
        }
        reportedStreamCount = streams.count
        if requested.multiple != true, streams.count > 1 {
            streams = [streams[streams.count - 1]]
        }
        if let asked = requested.sources, asked.rawValue.nonzeroBitCount == 1 {
            for index in streams.indices { streams[index].sourceType = asked }
        }
        self.streams = streams
    }
}
