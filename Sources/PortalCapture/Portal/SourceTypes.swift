/// What a screen cast may capture: the bitmask of `org.freedesktop.portal.ScreenCast`'s `types` option and
/// `AvailableSourceTypes` property (1 monitor, 2 window, 4 virtual).
public struct SourceTypes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let monitor = SourceTypes(rawValue: 1)
    public static let window = SourceTypes(rawValue: 2)
    /// Needs ScreenCast version 3 or later.
    public static let virtual = SourceTypes(rawValue: 4)

    public var description: String {
        var names: [String] = []
        if contains(.monitor) { names.append("monitor") }
        if contains(.window) { names.append("window") }
        if contains(.virtual) { names.append("virtual") }
        return names.isEmpty ? "none" : names.joined(separator: "|")
    }
}
