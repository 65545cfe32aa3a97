import Foundation

/// pwrecord's private state: `$XDG_STATE_HOME/pwrecord` (an absolute `XDG_STATE_HOME` only, as the XDG spec
/// says), else `~/.local/state/pwrecord` with `~` from `$HOME` (absolute), else from the passwd database, as
/// for the configuration. Kept recordings and restore tokens live below it.
enum StateDirectory {
    static func url(_ subdirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((UserHome.path(environment: environment) ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state")
        return URL(fileURLWithPath: state).appendingPathComponent("pwrecord/" + subdirectory)
    }

    /// Where `url` is without `XDG_STATE_HOME`: below the home the passwd database gives the effective user,
    /// which no environment variable moves (the policy trusts this place; see `PreflightCheck`). Nil when the
    /// user has no passwd entry.
    static func privateDefault(_ subdirectory: String) -> URL? {
        guard let home = PolicyPasswdEntry(uid: geteuid())?.home, home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home + "/.local/state/pwrecord/" + subdirectory)
    }
}
