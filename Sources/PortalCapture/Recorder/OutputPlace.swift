import Foundation

/// The policy's `output-dirs` rule as the recorder applies it, and how a refusal is worded.
public enum OutputPlace {
    /// The options of `spec` whose value is a file or folder the sink writes (`SinkOptionInfo.isPath`: the
    /// built-in sinks' `output=`, the raw sink's `audio=`, a plugin's `output=`). A sink `registry` does not
    /// know (a plugin not loaded yet) has `output=` and `audio=` taken for paths.
    public static func pathKeys(of spec: SinkSpec, in registry: SinkRegistry) -> [String] {
        guard let factory = try? registry.factory(for: spec.id) else { return SinkOptionInfo.conventionalPathNames }
        return factory.options.filter(\.isPath).map(\.name)
    }

    static func allowed(_ decision: PolicyDecision) -> String {
        guard let dirs = decision.allowedOutputDirs else { return "anywhere" }
        // Layers whose directories have nothing in common (or a broken policy) leave no folder at all.
        return dirs.isEmpty ? "none" : dirs.joined(separator: ", ")
    }

    /// Why the policy refuses a file at `path`: its folder is not allowed, or (the folder being allowed) the
    /// name itself leads elsewhere, through a symlink.
    public static func refusal(placing path: String, _ decision: PolicyDecision) -> String {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if decision.allowsFolder(dir) {
            return "the policy allows saving recordings or screenshots only in \(allowed(decision)), and \(path) leads elsewhere (a symlink?)"
        }
        return "the policy does not allow saving recordings or screenshots in \(dir) (allowed: \(allowed(decision)))"
    }

    /// `disabled` with `refusal(placing:_:)` unless the policy lets a file be put at `path`
    /// (`PolicyDecision.allowsPlacing`): a recording's output, a saved copy, a screenshot.
    public static func check(placing path: String, _ decision: PolicyDecision) throws(RecordingError) {
        guard decision.allowsPlacing(at: path) else { throw .disabled(reason: refusal(placing: path, decision)) }
    }

    /// `disabled` with every reason the policy gives, unless it allows capturing the screen now.
    public static func checkAvailable(_ decision: PolicyDecision) throws(RecordingError) {
        guard decision.isAvailable else {
            throw .disabled(reason: decision.reasons.map(\.description).joined(separator: "; "))
        }
    }
}
