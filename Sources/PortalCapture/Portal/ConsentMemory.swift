import Foundation

/// Remembered consent, as ReplayKit remembers a user's "allow" for a while: the portal's restore tokens per app id
/// in a ``RestoreTokenStore``, honoured for ``maxAge`` (the policy's `consent-memory`).
///
/// Used by ``ScreenCastPortal/start(_:appID:consent:parentWindow:)``: it asks for `persist_mode` 2 (unless the options
/// say otherwise), sends the app's token when it is younger than ``maxAge`` and was granted for the same selection
/// of sources, drops a token the portal refuses and retries once without it, and stores the new token `Start`
/// returns when the choice was to persist (`persist_mode` 2: a mode 1 token dies with the connection).
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

    /// The app's token if remembering is enabled, the token is young enough and was granted for `selection`
    /// (``ScreenCastOptions/consentSelection``); an expired one is deleted, one for another selection is kept.
    public func token(for appID: String, selection: String, now: Date = Date()) -> String? {
        entry(for: appID, selection: selection, now: now)?.token
    }

    /// `token(for:selection:now:)` with the time it was issued, from one read of the store.
    public func entry(for appID: String, selection: String, now: Date = Date()) -> RestoreTokenStore.Entry? {
        guard isEnabled, let entry = store.entry(for: appID), entry.selection == selection else { return nil }
        return store.fresh(entry, for: appID, maxAge: maxAge.map(\.inSeconds) ?? .infinity, now: now)
    }

    /// Stores a token `Start` returned for `selection`, issued `now`.
    public func remember(_ token: String, for appID: String, selection: String, now: Date = Date()) throws {
        guard isEnabled else { return }
        try store.store(token, for: appID, selection: selection, now: now)
    }

    /// Forgets the app's token (the portal refused it).
    public func forget(_ appID: String) {
        store.remove(for: appID)
    }
}
