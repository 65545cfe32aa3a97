/// One `key = value` line of a policy file, as the administrator wrote it (without its comment).
///
/// Decisions and explanations point at these, so `pwrecord policy explain` can show which lines made a decision.
public struct PolicySourceLine: Sendable, Hashable, CustomStringConvertible {
    /// The file the line is in.
    public let file: String
    /// 1-based line number.
    public let line: Int
    /// The section the line belongs to, e.g. `defaults`, `group:kids`.
    public let section: String
    /// The line's text, trimmed, without its comment, e.g. `hours = 16:00-18:00`.
    public let text: String

    public init(file: String, line: Int, section: String, text: String) {
        self.file = file
        self.line = line
        self.section = section
        self.text = text
    }

    /// `file:line: text  [section]`.
    public var description: String { "\(file):\(line): \(text)  [\(section)]" }
}
