import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture

@Suite("Policy subjects")
struct PolicySubjectTests {
    @Test("the current subject is the effective user, with groups, home and executable from the system databases")
    func current() throws {
        let subject = try PolicySubject.current(appID: "org.example.Test")
        let entry = try #require(getpwuid(geteuid()))
        #expect(subject.user == String(cString: entry.pointee.pw_name))
        #expect(subject.home == String(cString: entry.pointee.pw_dir))
        let primary = try #require(getgrgid(entry.pointee.pw_gid))
        #expect(subject.groups.contains(String(cString: primary.pointee.gr_name)))
        #expect(subject.appID == "org.example.Test")
        let executable = try #require(subject.executable)
        #expect(executable.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: executable))
    }

    @Test("another user is looked up by name; an unknown name is an error")
    func lookup() throws {
        let root = try PolicySubject.lookup(user: "root", appID: "pwrecord", executable: "/proc/self/exe")
        #expect(root.user == "root")
        #expect(root.groups.contains("root"))
        #expect(root.executable?.hasPrefix("/proc") == false)  // resolved to the real file
        #expect(throws: PolicyError.unknownUser("no-such-user-pwrecord")) {
            try PolicySubject.lookup(user: "no-such-user-pwrecord")
        }
        #expect(PolicyError.unknownUser("x").description == "no passwd entry for user x; the recording policy cannot tell who is recording")
    }

    @Test("a group entry larger than the first buffer is read by growing the buffer, not left out")
    func largeGroupEntry() throws {
        var sizes: [Int] = []
        let name = try PolicyPasswdEntry.groupName(4242, user: "someone") { _, group, buffer, size, result in
            sizes.append(size)
            guard size >= 1 << 20 else { return ERANGE }
            strcpy(buffer, "huge-team")
            group.pointee.gr_name = buffer
            result.pointee = group
            return 0
        }
        #expect(name == "huge-team")
        #expect(sizes.first == 16_384 && sizes.last! >= 1 << 20)
    }

    @Test("a failing group database is an error naming the user and group, never a group left out")
    func failingGroupDatabase() throws {
        #expect(throws: PolicyError.groupLookupFailed(user: "someone", reason: "group 4242: Input/output error")) {
            try PolicyPasswdEntry.groupName(4242, user: "someone") { _, _, _, _, _ in EIO }
        }
        #expect(throws: PolicyError.self) {
            try PolicyPasswdEntry.groupName(4242, user: "someone") { _, _, _, _, _ in ERANGE }
        }
        let entry = try #require(PolicyPasswdEntry(uid: geteuid()))
        #expect(throws: PolicyError.groupLookupFailed(user: entry.name, reason: "group \(entry.gid): Input/output error")) {
            try entry.groupNames { _, _, _, _, _ in EIO }
        }
        #expect(PolicyError.groupLookupFailed(user: "u", reason: "r").description.hasPrefix("cannot read the groups of user u: r;"))
    }

    @Test("a gid without a group entry (success, no result) has no name and is no error; ENOENT from a module is a failure")
    func missingGroupEntry() throws {
        #expect(try PolicyPasswdEntry.groupName(4242, user: "someone") { _, _, _, _, result in result.pointee = nil; return 0 } == nil)
        #expect(throws: PolicyError.self) { try PolicyPasswdEntry.groupName(4242, user: "someone") { _, _, _, _, _ in ENOENT } }
    }
}
