/// `pwrecord`'s exit statuses, documented in `--help` and the README.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    /// Anything that went wrong at run time.
    case failure = 1
    /// The command line was wrong.
    case usage = 2
    /// The user declined the portal's consent dialog.
    case declined = 3
    /// The recording policy disallows it.
    case disabledByPolicy = 4
    /// No portal (xdg-desktop-portal with a ScreenCast backend) or no PipeWire.
    case unavailable = 5
    /// The desktop refused screen capture for this app (its privacy settings or portal permissions; the portal's
    /// `org.freedesktop.portal.Error.NotAllowed`). Not the recording policy, which is `disabledByPolicy`.
    case notPermitted = 6

    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage error (bad arguments)"
        case .declined: "declined by the user"
        case .disabledByPolicy: "disabled by the recording policy"
        case .unavailable: "unavailable: no screen-cast portal or no PipeWire"
        case .notPermitted: "not permitted by the desktop's privacy settings"
        }
    }

    static var helpText: String {
        "EXIT CODES:\n" + allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
    }
}
