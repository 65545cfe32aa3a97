/// The keys a policy section may set. Anything else is an error (fails closed).
public enum PolicyKey: String, CaseIterable, Sendable {
    /// `allow` | `deny`: whether recording is available at all.
    case recording
    /// `allow` | `deny`: whether a microphone stream may be recorded.
    case microphone
    /// `allow` | `deny`: whether system audio (what the desktop plays, from the default output's monitor) may be
    /// recorded.
    case systemAudio = "system-audio"
    /// A duration (`30s`, `30m`, `2h`, `1h30m`) or `unlimited`: the longest a recording may run.
    case maxDuration = "max-duration"
    /// Weekly time windows (`08:00-20:00`, `mon-fri 08:00-18:00, sat 10:00-12:00`) or `always`.
    case hours
    /// A duration or `unlimited`: how long a remembered consent (portal restore token) is honoured; `0` asks every time.
    case consentMemory = "consent-memory"
    /// A comma-separated list of sink ids that may be used.
    case sinks
    /// A comma-separated list of directories recordings may be saved under; `~` is the recording user's home.
    case outputDirs = "output-dirs"
}
