import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture

/// `getgrouplist` lists fewer groups, silently, when a source of the group database is down: every group a
/// `[group:]` section names is also looked up by name, and a failing lookup fails the decision closed.
@Suite("Groups the policy names are confirmed by name")
struct PolicyGroupMembershipTests {
    static let policy = Policy(documents: [PolicyDocument.parse("[group:ghosts]\nrecording = deny\n", file: "1.conf")])

    /// Ann, her groups as read from the database (which left `ghosts` out).
    static var ann: PolicySubject {
        var subject = PolicySubject(user: "ann", groups: ["ann"])
        subject.groupsFromDatabase = true
        return subject
    }

    /// A stand-in `getgrnam_r` answering `rc`, and for success a group `ghosts` with `members`.
    static func lookup(rc: Int32 = 0, members: [String]) -> Policy.GroupByName {
        { name, group, buffer, size, result in
            guard rc == 0 else { return rc }
            guard name == "ghosts" else { result.pointee = nil; return 0 }
            // Names first, then the pointer array, all inside the caller's buffer.
            var offset = 0
            var pointers: [UnsafeMutablePointer<CChar>?] = []
            for text in [name] + members {
                let bytes = Array(text.utf8CString)
                guard offset + bytes.count <= size else { return ERANGE }
                for (i, b) in bytes.enumerated() { buffer[offset + i] = b }
                pointers.append(buffer + offset)
                offset += bytes.count
            }
            offset = (offset + 7) & ~7
            let list = UnsafeMutableRawPointer(buffer + offset).bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: members.count + 1)
            for (i, p) in pointers.dropFirst().enumerated() { list[i] = p }
            list[members.count] = nil
            group.pointee.gr_name = pointers[0]
            group.pointee.gr_mem = list
            result.pointee = group
            return 0
        }
    }

    @Test("a member the group list left out is found by the group's name, and the group's rules apply to her")
    func memberFoundByName() {
        let (subject, problems) = Self.policy.confirmingGroups(of: Self.ann, lookup: Self.lookup(members: ["bob", "ann"]))
        #expect(problems.isEmpty)
        #expect(subject.groups == ["ann", "ghosts"])
        let decision = Self.policy.decision(from: Self.policy.resolved(for: subject), at: Date(), timeZone: .gmt)
        #expect(!decision.isAvailable)
        let (outsider, _) = Self.policy.confirmingGroups(of: Self.ann, lookup: Self.lookup(members: ["bob"]))
        #expect(outsider.groups == ["ann"])
    }

    @Test("a failing lookup of a named group fails the decision closed with groupLookupFailed")
    func failingLookupFailsClosed() {
        let (_, problems) = Self.policy.confirmingGroups(of: Self.ann, lookup: Self.lookup(rc: EIO, members: []))
        #expect(problems == [.groupLookupFailed(user: "ann", reason: "group ghosts: Input/output error")])
        let decision = Self.policy.decision(from: Self.policy.resolved(for: Self.ann), at: Date(), timeZone: .gmt,
                                            groupProblems: problems)
        #expect(!decision.isAvailable && decision.reasons == problems && !decision.microphoneAllowed)
    }

    @Test("groups given with the subject are taken as they are: nothing is looked up")
    func givenGroupsTakenAsTheyAre() {
        let given = PolicySubject(user: "ann", groups: ["ann"])
        let (subject, problems) = Self.policy.confirmingGroups(of: given, lookup: { _, _, _, _, _ in
            Issue.record("looked up")
            return EIO
        })
        #expect(problems.isEmpty && subject == given)
    }
}
