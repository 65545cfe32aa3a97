/// Whether the portal should remember the user's choice: ScreenCast's `persist_mode` option (version 4).
public enum PersistMode: UInt32, Sendable, Hashable {
    /// Ask every time.
    case doNotPersist = 0
    /// Remember while the application runs.
    case application = 1
    /// Remember until revoked; the portal returns a `restore_token` to send next time.
    case persistent = 2
}
