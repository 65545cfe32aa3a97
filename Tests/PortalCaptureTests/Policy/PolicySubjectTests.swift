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
}
