/// The policy's `output-dirs` rule as the recorder applies it, and how a refusal is worded.
public enum OutputPlace {
    /// Sink options whose value is a file or folder the sink writes (`output=` of the built-in sinks, the raw
    /// sink's `audio=`).
    public static let sinkOptionKeys = ["output", "audio"]

    static func allowed(_ decision: PolicyDecision) -> String {
        decision.allowedOutputDirs?.joined(separator: ", ") ?? "anywhere"
    }

    static func refusal(_ dir: String, _ decision: PolicyDecision) -> String {
        "the policy does not allow saving recordings in \(dir) (allowed: \(allowed(decision)))"
    }
}
