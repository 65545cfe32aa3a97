/// The value of `recording` and `microphone`: `allow` or `deny`. Deny is the stricter.
public enum PolicyPermission: String, Sendable, Equatable {
    case allow
    case deny
}
