import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// A reentrant group lookup with its key bound: `(group, buffer, size, result) -> errno`.
    typealias GroupEntryCall = (UnsafeMutablePointer<Glibc.group>, UnsafeMutablePointer<CChar>, Int,
                                UnsafeMutablePointer<UnsafeMutablePointer<Glibc.group>?>) -> Int32
    /// `getgrgid_r`'s shape, so tests can stand in for the group database.
    typealias GroupLookup = (gid_t, UnsafeMutablePointer<Glibc.group>, UnsafeMutablePointer<CChar>, Int,
                             UnsafeMutablePointer<UnsafeMutablePointer<Glibc.group>?>) -> Int32

    /// The largest buffer a group entry may need (a group with very many members); past it the lookup fails.
    static let largestGroupBuffer = 16 << 20

    /// The names of the user's groups from the group database (`getgrouplist`, then `getgrgid_r`). A lookup
    /// that fails (an NSS source down, an entry too large) throws instead of leaving the group out: a group
    /// the policy restricts must never go unnoticed. A gid without a group entry (glibc: success with no
    /// result) has no name to match and is left out; any error code, ENOENT included (what a module whose
    /// daemon is gone may say), is a failure.
    func groupNames(lookup: GroupLookup = { getgrgid_r($0, $1, $2, $3, $4) }) throws(PolicyError) -> [String] {
        var count: Int32 = 64
        var gids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &gids, &count) == -1 {
            gids = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid, &gids, &count) != -1 else {
                throw .groupLookupFailed(user: name, reason: "getgrouplist found more groups than it reported")
            }
        }
        var names: [String] = []
        for gid in gids.prefix(Int(count)) {
            guard let text = try Self.groupName(gid, user: name, lookup: lookup) else { continue }
            if !names.contains(text) { names.append(text) }
        }
        return names
    }

    /// The name of group `gid`, nil when it has no entry.
    static func groupName(_ gid: gid_t, user: String, lookup: GroupLookup) throws(PolicyError) -> String? {
        try groupEntry("group \(gid)", user: user, lookup: { lookup(gid, $0, $1, $2, $3) }) { group in
            group?.gr_name.map { String(cString: $0) }
        }
    }

    /// One group entry through a reentrant lookup (`getgrgid_r`, `getgrnam_r`) given a buffer of 16 KiB that
    /// grows fourfold while it says ERANGE, up to `largestGroupBuffer`; `read` gets the entry (nil: none, a
    /// success with no result) while its buffer lives. Any error code throws `groupLookupFailed` naming `what`.
    static func groupEntry<T>(
        _ what: String, user: String, lookup: GroupEntryCall, read: (Glibc.group?) -> T
    ) throws(PolicyError) -> T {
        var size = 16_384
        while true {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>? = nil
            var buffer = [CChar](repeating: 0, count: size)
            let (rc, value) = buffer.withUnsafeMutableBufferPointer { raw -> (Int32, T?) in
                let rc = lookup(&group, raw.baseAddress!, raw.count, &result)
                return (rc, rc == 0 ? read(result == nil ? nil : group) : nil)
            }
            switch rc {
            case 0:
                return value!
            case ERANGE where size < largestGroupBuffer:
                size *= 4
            case ERANGE:
                throw .groupLookupFailed(user: user, reason: "the entry of \(what) is larger than \(largestGroupBuffer >> 20) MiB")
            default:
                throw .groupLookupFailed(user: user, reason: "\(what): \(String(cString: strerror(rc)))")
            }
        }
    }
}
