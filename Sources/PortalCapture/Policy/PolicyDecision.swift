import Foundation

/// What the policy allows one subject (user, groups, app, executable) at one moment.
///
/// `nil` limits mean "no restriction". A decision made from a policy with problems (a syntax error, an
/// untrusted file...) fails closed: unavailable, with the problems as reasons, no microphone, no system audio,
/// no sinks, no output directories, zero durations.
public struct PolicyDecision: Sendable, Equatable {
    /// Why recording is unavailable; empty when it is available. Policy problems come first (`file:line: ...`),
    /// then `recordingDenied`, then `outsideHours` (or `timeZoneRulesOverridden` when hours cannot be read).
    public let reasons: [PolicyError]
    /// Whether a microphone stream may be recorded.
    public let microphoneAllowed: Bool
    /// Whether system audio (the default output's monitor) may be recorded.
    public let systemAudioAllowed: Bool
    /// The longest a recording may run; nil when unlimited.
    public let maxDuration: Duration?
    /// How long a remembered consent (portal restore token) is honoured; `.zero` asks every time; nil unlimited.
    public let consentMemory: Duration?
    /// The sink ids that may be used; nil when any sink may.
    public let allowedSinks: Set<String>?
    /// The canonical directories recordings may be written under; nil when anywhere the user can write.
    public let allowedOutputDirs: [String]?
    /// The next moment this decision changes by itself (an `hours` boundary); nil when only an edit of the
    /// policy files can change it. A watcher re-evaluates exactly then.
    public let nextChange: Date?

    public init(reasons: [PolicyError], microphoneAllowed: Bool, systemAudioAllowed: Bool, maxDuration: Duration?,
                consentMemory: Duration?, allowedSinks: Set<String>?, allowedOutputDirs: [String]?, nextChange: Date?) {
        self.reasons = reasons
        self.microphoneAllowed = microphoneAllowed
        self.systemAudioAllowed = systemAudioAllowed
        self.maxDuration = maxDuration
        self.consentMemory = consentMemory
        self.allowedSinks = allowedSinks
        self.allowedOutputDirs = allowedOutputDirs
        self.nextChange = nextChange
    }

    /// Everything allowed, nothing limited: the decision when no policy files exist.
    public static let unrestricted = PolicyDecision(
        reasons: [], microphoneAllowed: true, systemAudioAllowed: true, maxDuration: nil, consentMemory: nil,
        allowedSinks: nil, allowedOutputDirs: nil, nextChange: nil)

    /// The fail-closed decision: unavailable for `reasons`, and nothing allowed.
    public static func failedClosed(_ reasons: [PolicyError]) -> PolicyDecision {
        PolicyDecision(reasons: reasons, microphoneAllowed: false, systemAudioAllowed: false, maxDuration: .zero,
                       consentMemory: .zero, allowedSinks: [], allowedOutputDirs: [], nextChange: nil)
    }

    /// Whether recording may start now.
    public var isAvailable: Bool { reasons.isEmpty }

    /// The time from `now` until `nextChange`, never negative; nil when it does not change by itself.
    public func timeUntilNextChange(from now: Date) -> Duration? {
        guard let nextChange else { return nil }
        let seconds = max(0, nextChange.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1_000).rounded(.up)))
    }

    /// Whether the sink with this id may be used.
    public func allowsSink(_ id: String) -> Bool { allowedSinks?.contains(id) ?? true }

    /// Whether a recording may be written to `path`: the path, with symlinks and `..` resolved the way the
    /// kernel will when the file is created, lies inside an allowed directory. A relative path is taken from
    /// the current directory. A path through a dangling symlink is refused (the file would land wherever it
    /// points).
    public func allowsOutput(_ path: String) -> Bool {
        guard let allowed = allowedOutputDirs else { return true }
        guard let resolved = PolicyPath.resolve(path) else { return false }
        return allowed.contains { PolicyPath.isInside(resolved, $0) }
    }

    /// Whether a file may be put at `path` by renaming a new file over its name: its folder (resolved) must be
    /// allowed, and the last name counts as written, not followed (a rename replaces a symlink there, it does
    /// not write through it). Both this and `allowsOutput` must hold for such files.
    public func allowsPlacing(at path: String) -> Bool {
        guard allowedOutputDirs != nil else { return true }
        let url = URL(fileURLWithPath: path)
        return allowsFolder(url.deletingLastPathComponent().path) && allowsOutput(path)
    }

    /// Whether `dir` (resolved) lies inside an allowed output folder.
    func allowsFolder(_ dir: String) -> Bool {
        guard let allowed = allowedOutputDirs else { return true }
        guard let resolved = PolicyPath.resolve(dir) else { return false }
        return allowed.contains { PolicyPath.isInside(resolved, $0) }
    }
}
