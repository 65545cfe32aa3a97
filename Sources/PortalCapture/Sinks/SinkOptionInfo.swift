/// An option a sink takes, as `pwrecord sinks` lists it and as the registry checks specs against it.
public struct SinkOptionInfo: Sendable, Hashable {
    public var name: String
    /// The value used when the spec does not give the option; nil when there is none (or it depends on
    /// other options, which `summary` then explains).
    public var defaultValue: String?
    /// The values the option takes, when it is a choice; nil for free-form values.
    public var choices: [String]?
    /// One line for `pwrecord sinks`.
    public var summary: String
    /// Whether the value is a file or folder the sink writes (`output=`): the policy's `output-dirs` govern it.
    public var isPath: Bool

    /// The option names taken for paths where a sink cannot say (a plugin's C table, a sink not loaded yet):
    /// what the built-in sinks write to.
    public static let conventionalPathNames = ["output", "audio"]

    public init(_ name: String, default defaultValue: String? = nil, choices: [String]? = nil, summary: String,
                isPath: Bool = false) {
        self.name = name
        self.defaultValue = defaultValue
        self.choices = choices
        self.summary = summary
        self.isPath = isPath
    }
}
