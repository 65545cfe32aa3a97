/// How long portal requests may take before they are closed and fail with ``PortalError/timedOut(request:seconds:)``.
/// A backend that hangs never answers at all (the frontend waits forever), so every request has one.
public struct PortalTimeouts: Sendable, Equatable {
    /// Requests that may wait for a person (a consent dialog): `SelectSources`, `Start`, `Screenshot`.
    /// Default 120 s.
    public var consent: Duration
    /// Everything answered without a person: `CreateSession`, `OpenPipeWireRemote`, property reads,
    /// `Session.Close`. Default 25 s (libdbus' default).
    public var call: Duration

    public init(consent: Duration = .seconds(120), call: Duration = .seconds(25)) {
        self.consent = consent
        self.call = call
    }

    /// The defaults: 120 s for consent, 25 s for calls.
    public static let standard = PortalTimeouts()
}
