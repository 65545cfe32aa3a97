import PortalCapture

extension ExitCode {
    /// The exit status for a recorder error: 3 declined, 4 disabled by the policy, 5 unavailable, 6 not permitted
    /// by the desktop, 2 bad parameter, else 1.
    init(_ error: RecordingError) {
        switch error {
        case .userDeclined: self = .declined
        case .disabled: self = .disabledByPolicy
        case .notPermitted: self = .notPermitted
        case .portalUnavailable: self = .unavailable
        case .invalidParameter: self = .usage
        default: self = .failure
        }
    }

    /// The exit status when recording is unavailable: the policy first (4), then portal or PipeWire (5);
    /// nil when available.
    init?(unavailable availability: Availability) {
        guard !availability.isAvailable else { return nil }
        let policy = availability.reasons.contains { if case .policy = $0 { true } else { false } }
        self = policy ? .disabledByPolicy : .unavailable
    }
}
