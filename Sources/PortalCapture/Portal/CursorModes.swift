/// How the pointer appears in a screen cast: the bitmask of the `cursor_mode` option and the
/// `AvailableCursorModes` property of `org.freedesktop.portal.ScreenCast` (version 2 and later).
public struct CursorModes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Not drawn.
    public static let hidden = CursorModes(rawValue: 1)
    /// Drawn into the frames.
    public static let embedded = CursorModes(rawValue: 2)
    /// Sent as `SPA_META_Cursor` beside the frames (pwrecord can composite it itself).
    public static let metadata = CursorModes(rawValue: 4)

    public var description: String {
        var names: [String] = []
        if contains(.hidden) { names.append("hidden") }
        if contains(.embedded) { names.append("embedded") }
        if contains(.metadata) { names.append("metadata") }
        return names.isEmpty ? "none" : names.joined(separator: "|")
    }
}
