import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who and what is asking to record: the user, their groups, the declared app id and the executable.
///
/// Groups come from the group database (`getgrouplist(3)`), not from the process's credentials, so a user an
/// administrator has just added to a group is covered before they log in again. The home directory (what `~`
/// means in `output-dirs`) comes from the passwd entry, never from `$HOME`: no environment variable changes
/// what the policy allows.
public struct PolicySubject: Sendable, Equatable {
    /// The user name.
    public var user: String
    /// The names of the user's groups, primary group included.
    public var groups: [String]
    /// The app id the program declares (`pwrecord --app-id`, the recorder's app id); nil when it declares none.
    /// It is the program's own claim: see docs/policy.md on what `[app:ID]` sections can and cannot enforce.
    public var appID: String?
    /// The canonical path of the running executable (symlinks resolved); nil when unknown.
    public var executable: String?
    /// The user's home directory, for `~` in `output-dirs`; nil when unknown (then `~` entries allow nothing).
    public var home: String?
    /// Whether `groups` came from the group database (`current`, `lookup`), so that `refreshingGroups()` may
    /// read them again; a subject made with given groups keeps them.
    var groupsFromDatabase = false

    public init(user: String, groups: [String] = [], appID: String? = nil, executable: String? = nil,
                home: String? = nil) {
        self.user = user
        self.groups = groups
        self.appID = appID
        self.executable = executable
        self.home = home
    }

    /// The user this process runs as (effective uid), with the executable from `/proc/self/exe`.
    public static func current(appID: String? = nil) throws(PolicyError) -> PolicySubject {
        let uid = geteuid()
        guard let entry = PolicyPasswdEntry(uid: uid) else { throw .unknownUser("uid \(uid)") }
        var subject = PolicySubject(user: entry.name, groups: try entry.groupNames(), appID: appID,
                                    executable: PolicyPath.realPath("/proc/self/exe"), home: entry.home)
        subject.groupsFromDatabase = true
        return subject
    }

    /// Another user by name, e.g. for `pwrecord policy explain --user NAME`. The executable is resolved.
    public static func lookup(user: String, appID: String? = nil,
                              executable: String? = nil) throws(PolicyError) -> PolicySubject {
        guard let entry = PolicyPasswdEntry(name: user) else { throw .unknownUser(user) }
        let exe = executable.map { PolicyPath.resolve($0) ?? $0 }
        var subject = PolicySubject(user: entry.name, groups: try entry.groupNames(), appID: appID, executable: exe,
                                    home: entry.home)
        subject.groupsFromDatabase = true
        return subject
    }

    /// The subject with its groups read again from the group database (an administrator's `usermod -aG`
    /// reaches a recording already running); unchanged when its groups were given, or the user is gone. A
    /// failing group database throws (the caller fails closed).
    func refreshingGroups() throws(PolicyError) -> PolicySubject {
        guard groupsFromDatabase, let entry = PolicyPasswdEntry(name: user) else { return self }
        var subject = self
        subject.groups = try entry.groupNames()
        return subject
    }
}
