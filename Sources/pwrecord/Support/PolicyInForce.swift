import PortalCapture

/// The policy's decision for the person running this command, now: for commands that write files or capture
/// the screen without a `ScreenRecorder` (whose monitor keeps its own decision up to date).
enum PolicyInForce {
    /// The decision for `appID` under the policy at `locations`. Who runs the command must be known for the
    /// policy to apply: if not, `disabled` (fails closed), saying what was being `done`.
    static func decision(appID: String, locations: PolicyLocations = PolicyLocations(), doing done: String) throws(RecordingError) -> PolicyDecision {
        do {
            return Policy.load(locations).decision(for: try PolicySubject.current(appID: appID))
        } catch {
            throw .disabled(reason: "cannot tell who is \(done), so the policy cannot be applied: \(error)")
        }
    }
}
