import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture

/// System policy files and directories reached through symlinks: whoever may write a directory on the way to
/// the target could swap the policy, so those directories must be trusted as `/etc/pwrecord` is.
@Suite("Policy files reached through symlinks")
struct PolicyLinkTrustTests {
    static let now = PolicyTestTime.date("2025-03-24 10:00")
    static let someoneElse: uid_t = 65_534
    static let asRoot = Testing.ConditionTrait.enabled(if: geteuid() == 0, "only root can give a directory to another user")

    static func decide(_ fixture: PolicyFixture) -> PolicyDecision {
        fixture.load().decision(for: .alice, at: now, timeZone: PolicyTestTime.utc)
    }

    @Test("a drop-in linking to a trusted file in trusted directories applies its rules")
    func trustedTarget() {
        let fixture = PolicyFixture()
        fixture.write(fixture.root + "/shared/pol/x.conf", "[defaults]\nmax-duration = 5m")
        fixture.link(fixture.dropIns + "/30-ext.conf", to: "../../../shared/pol/x.conf")
        let decision = Self.decide(fixture)
        #expect(decision.isAvailable, "\(decision.reasons)")
        #expect(decision.maxDuration == .seconds(300))
    }

    @Test("a drop-in linking into a directory others may write fails closed, naming the target and the directory")
    func writableDirectoryOnTheWay() {
        let fixture = PolicyFixture()
        let target = fixture.root + "/ext/pol/x.conf"
        fixture.write(target, "[defaults]\nrecording = deny")
        fixture.makeDirectory(fixture.root + "/ext", mode: 0o777)
        fixture.link(fixture.dropIns + "/30-ext.conf", to: target)
        let decision = Self.decide(fixture)
        let link = fixture.dropIns + "/30-ext.conf", real = fixture.canonicalRoot
        #expect(decision.reasons == [.writableLinkTarget(link: link, target: real + "/ext/pol/x.conf", path: real + "/ext",
                                                         mode: UInt32(S_IFDIR) | 0o777)])
        #expect(decision == .failedClosed(decision.reasons))
        #expect(decision.reasons.first?.description == "\(link): links to \(real)/ext/pol/x.conf through \(real)/ext, "
                + "writable by group or others without the sticky bit (mode 0777), who could swap the policy file; "
                + "run 'chmod go-w \(real)/ext' or move the file into a directory only root can write")
    }

    @Test("a drop-in linking into a directory another user owns fails closed, even after that user swaps the file",
          asRoot)
    func userOwnedDirectoryOnTheWay() throws {
        let fixture = PolicyFixture()
        let bob = fixture.root + "/x/bob"
        fixture.write(bob + "/pol/x.conf", "[defaults]\nrecording = deny")
        fixture.write(fixture.root + "/empty.conf", "")
        #expect(chown(bob, Self.someoneElse, Self.someoneElse) == 0)
        let link = fixture.dropIns + "/30-ext.conf", real = fixture.canonicalRoot
        fixture.link(link, to: bob + "/pol/x.conf")
        let expected = PolicyError.untrustedLinkTarget(link: link, target: real + "/x/bob/pol/x.conf", path: real + "/x/bob",
                                                       owner: Self.someoneElse, expected: 0)
        #expect(Self.decide(fixture).reasons == [expected])
        #expect(expected.description == "\(link): links to \(real)/x/bob/pol/x.conf through \(real)/x/bob, owned by uid "
                + "65534, not by root, who could swap the policy file; run 'chown root \(real)/x/bob' "
                + "or move the file into a directory only root can write")
        // Bob replaces his file by a link to an empty root-owned one: the rule is gone, but still nothing is allowed.
        fixture.remove(bob + "/pol/x.conf")
        fixture.link(bob + "/pol/x.conf", to: fixture.root + "/empty.conf")
        let swapped = Self.decide(fixture)
        #expect(!swapped.isAvailable)
        #expect(swapped.reasons.contains(.untrustedLinkTarget(link: link, target: real + "/empty.conf", path: real + "/x/bob",
                                                              owner: Self.someoneElse, expected: 0)), "\(swapped.reasons)")
    }

    @Test("every directory a chain of links passes through is checked, not only the final target's")
    func intermediateLink() {
        let fixture = PolicyFixture()
        fixture.write(fixture.root + "/safe/x.conf", "[defaults]\nmax-duration = 5m")
        fixture.makeDirectory(fixture.root + "/open", mode: 0o777)
        fixture.link(fixture.root + "/open/hop", to: fixture.root + "/safe/x.conf")
        fixture.link(fixture.dropIns + "/30-ext.conf", to: fixture.root + "/open/hop")
        let real = fixture.canonicalRoot
        #expect(Self.decide(fixture).reasons == [
            .writableLinkTarget(link: fixture.dropIns + "/30-ext.conf", target: real + "/safe/x.conf", path: real + "/open",
                                mode: UInt32(S_IFDIR) | 0o777)])
    }

    @Test("a sticky shared directory on the way is fine when the entry in it is trusted, not when another user owns it")
    func stickyDirectory() {
        let fixture = PolicyFixture()
        fixture.makeDirectory(fixture.root + "/shared", mode: 0o1777)
        fixture.write(fixture.root + "/shared/mine/x.conf", "[defaults]\nmax-duration = 5m")
        let link = fixture.dropIns + "/30-ext.conf"
        fixture.link(link, to: fixture.root + "/shared/mine/x.conf")
        #expect(Self.decide(fixture).isAvailable, "\(Self.decide(fixture).reasons)")
        guard geteuid() == 0 else { return }  // only root can give the entry to another user
        #expect(chown(fixture.root + "/shared/mine", Self.someoneElse, Self.someoneElse) == 0)
        let real = fixture.canonicalRoot
        #expect(Self.decide(fixture).reasons == [
            .untrustedLinkTarget(link: link, target: real + "/shared/mine/x.conf", path: real + "/shared/mine",
                                 owner: Self.someoneElse, expected: 0)])
    }

    @Test("a drop-in linking to a file others may write names the target in the fix")
    func writableTarget() {
        let fixture = PolicyFixture()
        fixture.write(fixture.root + "/pol/x.conf", "[defaults]\n", mode: 0o666)
        let link = fixture.dropIns + "/20-bob.conf", target = fixture.canonicalRoot + "/pol/x.conf"
        fixture.link(link, to: fixture.root + "/pol/x.conf")
        let reasons = Self.decide(fixture).reasons
        #expect(reasons == [.writableLinkTarget(link: link, target: target, path: target, mode: UInt32(S_IFREG) | 0o666)])
        #expect(reasons.first?.description == "\(link): links to \(target), writable by group or others (mode 0666); "
                + "run 'chmod go-w \(target)'")
    }

    @Test("a drop-in linking to a file another user owns names the target in the chown", asRoot)
    func userOwnedTarget() {
        let fixture = PolicyFixture()
        fixture.write(fixture.root + "/pol/x.conf", "[defaults]\n")
        #expect(chown(fixture.root + "/pol/x.conf", Self.someoneElse, Self.someoneElse) == 0)
        let link = fixture.dropIns + "/20-bob.conf", target = fixture.canonicalRoot + "/pol/x.conf"
        fixture.link(link, to: "../../../pol/x.conf")
        let reasons = Self.decide(fixture).reasons
        #expect(reasons == [.untrustedLinkTarget(link: link, target: target, path: target, owner: Self.someoneElse, expected: 0)])
        #expect(reasons.first?.description == "\(link): links to \(target), owned by uid 65534, not by root; "
                + "run 'chown root \(target)'")
    }

    @Test("policy.d itself linked into a directory others may write fails closed")
    func linkedDropInDirectory() {
        let fixture = PolicyFixture()
        fixture.makeDirectory(fixture.root + "/open", mode: 0o777)
        fixture.makeDirectory(fixture.root + "/open/policy.d")
        fixture.link(fixture.dropIns, to: fixture.root + "/open/policy.d")
        let real = fixture.canonicalRoot
        #expect(Self.decide(fixture).reasons == [
            .writableLinkTarget(link: fixture.dropIns, target: real + "/open/policy.d", path: real + "/open",
                                mode: UInt32(S_IFDIR) | 0o777)])
    }
}
