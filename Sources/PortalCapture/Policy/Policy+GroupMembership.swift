#if canImport(Glibc)
import Glibc
#endif

extension Policy {
    /// `getgrnam_r`'s shape, so tests can stand in for the group database.
    typealias GroupByName = (String, UnsafeMutablePointer<Glibc.group>, UnsafeMutablePointer<CChar>, Int,
                             UnsafeMutablePointer<UnsafeMutablePointer<Glibc.group>?>) -> Int32

    /// `subject` with its membership of every group a `[group:NAME]` section names checked by name as well.
    ///
    /// A subject's groups come from `getgrouplist`, which says nothing when a source of the group database
    /// (sssd, LDAP) is down: it just lists fewer groups, and a restriction on a group would go unnoticed. So
    /// each group the policy names that the list left out is looked up by name (`getgrnam_r`, whose failures
    /// show): a member is added, and a failing lookup is returned as a problem, to fail closed. Subjects whose
    /// groups were given (not read from the database) are taken as they are.
    func confirmingGroups(of subject: PolicySubject,
                          lookup: GroupByName = { getgrnam_r($0, $1, $2, $3, $4) }) -> (subject: PolicySubject, problems: [PolicyError]) {
        guard subject.groupsFromDatabase else { return (subject, []) }
        var confirmed = subject
        var problems: [PolicyError] = []
        var named: [String] = []
        for document in documents {
            for case .group(let name) in document.sectionHeaders where !subject.groups.contains(name) && !named.contains(name) {
                named.append(name)
            }
        }
        for name in named {
            do throws(PolicyError) {
                if try Self.members(ofGroup: name, user: subject.user, lookup: lookup).contains(subject.user) {
                    confirmed.groups.append(name)
                }
            } catch {
                problems.append(error)
            }
        }
        return (confirmed, problems)
    }

    /// The member names of group `name` (empty when there is no such group).
    static func members(ofGroup name: String, user: String, lookup: GroupByName) throws(PolicyError) -> [String] {
        try PolicyPasswdEntry.groupEntry("group \(name)", user: user, lookup: { lookup(name, $0, $1, $2, $3) }) { group in
            var names: [String] = []
            guard var member = group?.gr_mem else { return names }
            while let entry = member.pointee {
                names.append(String(cString: entry))
                member += 1
            }
            return names
        }
    }
}
