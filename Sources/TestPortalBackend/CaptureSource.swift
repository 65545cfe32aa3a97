/// A source a screen cast can show: "the whole virtual monitor" or "the test window", numbered when a
/// session picks two of a kind (`multiple`).
struct CaptureSource: Sendable, Hashable {
    enum Kind: String, Sendable {
        case monitor
        case window

        /// The `source_type` bit of `org.freedesktop.portal.ScreenCast` (1 MONITOR, 2 WINDOW).
        var sourceType: UInt32 { self == .monitor ? 1 : 2 }
    }

    var kind: Kind
    var index: Int

    /// The name used in restore data and node names, e.g. `monitor-0`.
    var id: String { "\(kind.rawValue)-\(index)" }

    /// Parses an ``id``; nil for anything else.
    init?(id: String) {
        let parts = id.split(separator: "-")
        guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])), let index = Int(parts[1]),
              (0...1).contains(index) else { return nil }
        self.init(kind: kind, index: index)
    }

    init(kind: Kind, index: Int) {
        self.kind = kind
        self.index = index
    }

    /// What the "dialog" picks for a `types` mask (1 MONITOR, 2 WINDOW) and `multiple`: the monitor first,
    /// then the window; with `multiple`, two sources (both kinds when both are asked for, else two of the one
    /// kind). `types` 0 means the default, a monitor. Empty when `types` asks for neither (e.g. only VIRTUAL,
    /// which this backend does not offer).
    static func choose(types: UInt32, multiple: Bool) -> [CaptureSource] {
        let monitor = types & 1 != 0 || types == 0, window = types & 2 != 0
        switch (monitor, window, multiple) {
        case (true, true, true): return [CaptureSource(kind: .monitor, index: 0), CaptureSource(kind: .window, index: 0)]
        case (true, _, false): return [CaptureSource(kind: .monitor, index: 0)]
        case (false, true, false): return [CaptureSource(kind: .window, index: 0)]
        case (true, false, true): return [CaptureSource(kind: .monitor, index: 0), CaptureSource(kind: .monitor, index: 1)]
        case (false, true, true): return [CaptureSource(kind: .window, index: 0), CaptureSource(kind: .window, index: 1)]
        case (false, false, _): return []
        }
    }
}
