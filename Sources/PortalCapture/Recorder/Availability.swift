/// Whether recording can start now, and why not (ReplayKit's `isAvailable`, with reasons).
public struct Availability: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The policy disallows recording now (`file:line: ...` or "outside hours 08:00-20:00").
        case policy(String)
        /// No xdg-desktop-portal with ScreenCast on the session bus.
        case portal(String)
        /// PipeWire cannot be reached.
        case pipewire(String)

        public var description: String {
            switch self {
            case .policy(let s): "policy: \(s)"
            case .portal(let s): "portal: \(s)"
            case .pipewire(let s): "pipewire: \(s)"
            }
        }
    }

    /// Reasons recording is unavailable; empty means available.
    public var reasons: [Reason]

    public init(reasons: [Reason] = []) { self.reasons = reasons }

    public var isAvailable: Bool { reasons.isEmpty }
    public var description: String { isAvailable ? "available" : "unavailable: " + reasons.map(\.description).joined(separator: "; ") }
}
