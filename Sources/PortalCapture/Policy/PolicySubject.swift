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
        return PolicySubject(user: entry.name, groups: entry.groupNames(), appID: appID,
                             executable: PolicyPath.realPath("/proc/self/exe"), home: entry.home)
    }

    /// Another user by name, e.g. for `pwrecord policy explain --user NAME`. The executable is resolved.
    public static func lookup(user: String, appID: String? = nil,
                              executable: String? = nil) throws(PolicyError) -> PolicySubject {
        guard let entry = PolicyPasswdEntry(name: user) else { throw .unknownUser(user) }
        let exe = executable.map { PolicyPath.resolve($0) ?? $0 }
        return PolicySubject(user: entry.name, groups: entry.groupNames(), appID: appID, executable: exe,
                             home: entry.home)
    }
}

/// A passwd entry, read with the reentrant `getpwnam_r`/`getpwuid_r`.
struct PolicyPasswdEntry {
    let name: String
    let gid: gid_t
    let home: String

    init?(name: String) {
        guard let entry = Self.lookup({ pwd, buffer, size, result in getpwnam_r(name, pwd, buffer, size, result) })
        else { return nil }
        self = entry
    }

    init?(uid: uid_t) {
        guard let entry = Self.lookup({ pwd, buffer, size, result in getpwuid_r(uid, pwd, buffer, size, result) })
        else { return nil }
        self = entry
    }

    private init(name: String, gid: gid_t, home: String) {
        self.name = name
        self.gid = gid
        self.home = home
    }

    private static func lookup(
        _ call: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int,
                 UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32
    ) -> PolicyPasswdEntry? {
        var size = 4_096
        while size <= 1 << 20 {
            var pwd = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buffer = [CChar](repeating: 0, count: size)
            let rc = buffer.withUnsafeMutableBufferPointer { call(&pwd, $0.baseAddress!, size, &result) }
            if rc == ERANGE { size *= 4; continue }
            guard rc == 0, result != nil, let name = pwd.pw_name else { return nil }
            return PolicyPasswdEntry(name: String(cString: name), gid: pwd.pw_gid,
                               home: pwd.pw_dir.map { String(cString: $0) } ?? "")
        }
        return nil
    }

    /// The names of the user's groups from the group database (`getgrouplist`, then `getgrgid_r`).
    func groupNames() -> [String] {
        var count: Int32 = 64
        var gids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &gids, &count) == -1 {
            gids = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid, &gids, &count) != -1 else { return [] }
        }
        var names: [String] = []
        for gid in gids.prefix(Int(count)) {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>? = nil
            var buffer = [CChar](repeating: 0, count: 16_384)
            let rc = buffer.withUnsafeMutableBufferPointer { getgrgid_r(gid, &group, $0.baseAddress!, $0.count, &result) }
            if rc == 0, result != nil, let name = group.gr_name {
                let text = String(cString: name)
                if !names.contains(text) { names.append(text) }
            }
        }
        return names
    }
}
