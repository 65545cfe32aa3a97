import Foundation

/// The user's home folder as pwrecord's own files find it (the state folder, the user's plugins): `$HOME` when
/// it is an absolute path, else the passwd database's entry for the effective user. A relative `$HOME` would
/// be resolved against whatever folder pwrecord was started in, so it is never used.
enum UserHome {
    /// Nil when `$HOME` is unset or relative and the user has no passwd entry with an absolute home.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment,
                     passwdHome: () -> String? = { PolicyPasswdEntry(uid: geteuid())?.home }) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        return passwdHome().flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
