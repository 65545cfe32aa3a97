import Foundation

/// Remembered consent, as ReplayKit remembers a user's "allow" for a while: the portal's restore tokens per app id
/// in a ``RestoreTokenStore``, honoured for ``maxAge`` (the policy's `consent-memory`).
///
/// Used by ``ScreenCastPortal/start(_:appID:consent:parentWindow:)``: it asks for `persist_mode` 2 (unless the options
/// say otherwise), sends the app's token when it is younger than ``maxAge``, drops a token the portal refuses and
/// retries once without it, and stores the new token `Start` returns.
public struct ConsentMemory: Sendable {
    public let store: RestoreTokenStore
    /// How long a token is honoured after it was issued: nil means without limit, `.zero` disables remembering
    /// (no token is sent or stored, persistence is not asked for).
    public let maxAge: Duration?

    public init(store: RestoreTokenStore = RestoreTokenStore(), maxAge: Duration?) {
        self.store = store
        self.maxAge = maxAge
    }

    /// False when ``maxAge`` is zero.
    public var isEnabled: Bool { maxAge != .zero }

    /// The app's token if remembering is enabled and the token is young enough; an expired one is deleted.
    public func token(for appID: String, now: Date = Date()) -> String? {
        guard isEnabled else { return nil }
        return store.token(for: appID, maxAge: maxAge.map(\.inSeconds) ?? .infinity, now: now)
    }

    /// Stores a token `Start` returned, issued now.
    public func remember(_ token: String, for appID: String, now: Date = Date()) throws {
        guard isEnabled else { return }
        try store.store(token, for: appID, now: now)
    }

    /// Forgets the app's token (the portal refused it).
    public func forget(_ appID: String) {
        store.remove(for: appID)
    }
}
