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
