import PortalCapture

/// The sink `pwrecord record` writes through, and what the policy's `sinks` mean for it: `status` and
/// `policy explain` both ask here, so they say the same.
enum RecordSink {
    /// `pwrecord record` always writes through the encoder sink.
    static let id = "encoder"

    /// Why the policy leaves `pwrecord record` nothing to record with although its decision is available: its
    /// `sinks` leave out the encoder. Nil when the encoder is allowed, and when the decision is unavailable anyway
    /// (a broken policy allows no sink at all; its own reasons say why, and are enough).
    static func unavailableReason(_ decision: PolicyDecision) -> String? {
        guard decision.isAvailable, let sinks = decision.allowedSinks, !sinks.contains(id) else { return nil }
        let allowed = sinks.isEmpty ? "no sink" : "only the sinks \(sinks.sorted().joined(separator: ", "))"
        return "the policy allows \(allowed), and 'pwrecord record' writes through '\(id)'"
    }
}
