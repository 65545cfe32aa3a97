/// What happened to remembered consent while ``ScreenCastPortal/start(_:appID:consent:parentWindow:)`` made a session
/// (``ScreenCastSession/consent``).
public struct ConsentReport: Sendable, Equatable, CustomStringConvertible {
    /// A restore token (remembered, or given in the options) was sent with the first `SelectSources`.
    public var tokenSent = false
    /// That token was refused or unusable (the request answered 2 or an error): it was dropped from the store and
    /// the session was made again, once, without it.
    public var tokenRefused = false
    /// `Start` returned a restore token and it was stored for next time.
    public var tokenStored = false
    /// Storing the new token failed; the session runs, the next start asks again.
    public var storeError: String?

    public init(tokenSent: Bool = false, tokenRefused: Bool = false, tokenStored: Bool = false, storeError: String? = nil) {
        self.tokenSent = tokenSent
        self.tokenRefused = tokenRefused
        self.tokenStored = tokenStored
        self.storeError = storeError
    }

    public var description: String {
        var parts: [String] = []
        if tokenSent { parts.append(tokenRefused ? "remembered consent refused, asked again" : "remembered consent sent") }
        if tokenStored { parts.append("consent remembered") }
        if let storeError { parts.append("consent not remembered: \(storeError)") }
        return parts.isEmpty ? "no remembered consent" : parts.joined(separator: "; ")
    }
}
