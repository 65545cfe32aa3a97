/// Makes one kind of sink from spec options: what the registry holds for each id, and what
/// `pwrecord sinks` lists.
public struct SinkFactory: Sendable {
    /// The id used in specs (`encoder`, `raw`, a plugin's id).
    public var id: String
    /// One line for `pwrecord sinks`.
    public var summary: String
    /// The options the sink takes; specs with other keys are refused before `make` runs.
    public var options: [SinkOptionInfo]
    /// Where the sink comes from: `built-in`, or the plugin's file path.
    public var origin: String
    /// Whether root stands behind the sink's code: built in, or a plugin file that root owns in a folder root
    /// owns. Under a policy's `sinks` list only such sinks are made (`SinkRegistry.makeSink`): a user's own
    /// plugin cannot take the id of one the administrator allowed.
    public var installedByRoot: Bool
    /// Builds the sink. Called with options already checked against `options`.
    public var make: @Sendable (SinkOptions) throws(SinkError) -> any CaptureSink

    public init(id: String, summary: String, options: [SinkOptionInfo] = [], origin: String = "built-in",
                installedByRoot: Bool = true, make: @escaping @Sendable (SinkOptions) throws(SinkError) -> any CaptureSink) {
        self.id = id
        self.summary = summary
        self.options = options
        self.origin = origin
        self.installedByRoot = installedByRoot
        self.make = make
    }
}
