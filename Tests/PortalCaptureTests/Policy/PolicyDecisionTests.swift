import Foundation
import Testing
@testable import PortalCapture

@Suite("Policy decisions and explanations")
struct PolicyDecisionTests {
    static let now = PolicyTestTime.date("2025-03-24 10:00")

    @Test("a denied recording names the line and tells the user whom to ask")
    func deniedMessage() {
        let decision = Policy.test("[group:kids]\nrecording = deny").decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(decision.reasons.map(\.description) == ["1.conf:2: recording is denied by [group:kids]; ask your administrator"])
    }

    @Test("outside the hours, the reason gives the window and the lines that set it")
    func outsideHoursMessage() {
        let policy = Policy.test("[defaults]\nhours = 08:00-20:00", "[group:kids]\nhours = mon-fri 16:00-22:00")
        let decision = policy.decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(decision.reasons.map(\.description) == [
            "outside the allowed recording hours (mon-fri 16:00-20:00, set at 1.conf:2 [defaults], 2.conf:2 [group:kids]); "
                + "try again within those hours or ask your administrator"])
        #expect(decision.nextChange == PolicyTestTime.date("2025-03-24 16:00"))
        #expect(decision.timeUntilNextChange(from: Self.now) == .seconds(6 * 3_600))
        let inside = policy.decision(for: .alice, at: PolicyTestTime.date("2025-03-24 17:00"), timeZone: PolicyTestTime.utc)
        #expect(inside.isAvailable)
        #expect(inside.nextChange == PolicyTestTime.date("2025-03-24 20:00"))
    }

    @Test("when one line alone makes the stricter value, only that line is named")
    func strictestLineOnly() {
        let policy = Policy.test("[defaults]\nhours = 08:00-20:00", "[group:kids]\nhours = 16:00-18:00")
        let decision = policy.decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(decision.reasons == [.outsideHours(allowed: PolicyHoursTests.hours("16:00-18:00"), lines: [
            PolicySourceLine(file: "2.conf", line: 2, section: "group:kids", text: "hours = 16:00-18:00")])])
    }

    enum Expect: Sendable, CustomTestStringConvertible {
        case microphone(Bool), systemAudio(Bool), maxDuration(Duration?), consentMemory(Duration?), sink(String, Bool)
        case outputDirs([String]), available(Bool), nextChange(String)

        var testDescription: String { "\(self)" }

        func check(_ d: PolicyDecision) {
            switch self {
            case .microphone(let allowed): #expect(d.microphoneAllowed == allowed)
            case .systemAudio(let allowed): #expect(d.systemAudioAllowed == allowed)
            case .maxDuration(let limit): #expect(d.maxDuration == limit)
            case .consentMemory(let limit): #expect(d.consentMemory == limit)
            case .sink(let id, let allowed): #expect(d.allowsSink(id) == allowed)
            case .outputDirs(let dirs): #expect(d.allowedOutputDirs == dirs)
            case .available(let available): #expect(d.isAvailable == available)
            case .nextChange(let time): #expect(d.nextChange == PolicyTestTime.date(time))
            }
        }
    }

    @Test("each key reaches the decision", arguments: [
        ("microphone = deny", [Expect.microphone(false), .systemAudio(true)]),
        ("microphone = allow", [.microphone(true)]),
        ("system-audio = deny", [.systemAudio(false), .microphone(true), .available(true)]),
        ("system-audio = allow", [.systemAudio(true)]),
        ("max-duration = 1h30m", [.maxDuration(.seconds(5_400))]),
        ("max-duration = unlimited", [.maxDuration(nil)]),
        ("consent-memory = 0", [.consentMemory(.zero)]),
        ("consent-memory = 8m", [.consentMemory(.seconds(480))]),
        ("consent-memory = unlimited", [.consentMemory(nil)]),
        ("sinks = encoder", [.sink("encoder", true), .sink("raw", false)]),
        ("output-dirs = /srv/rec", [.outputDirs(["/srv/rec"])]),
        ("recording = allow", [.available(true)]),
        ("recording = deny", [.available(false)]),
        ("hours = 09:00-11:00", [.available(true), .nextChange("2025-03-24 11:00")]),
        ("hours = 11:00-12:00", [.available(false), .nextChange("2025-03-24 11:00")]),
    ])
    func keyReachesDecision(line: String, expectations: [Expect]) {
        let decision = Policy.test("[defaults]\n" + line).decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        for expectation in expectations { expectation.check(decision) }
    }

    @Test("without a key, nothing is restricted")
    func unsetKeysAreUnrestricted() {
        let decision = Policy.test("[defaults]\n").decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(decision == .unrestricted)
        #expect(decision.allowsSink("anything") && decision.allowsOutput("/anywhere/x.mkv"))
        #expect(decision.timeUntilNextChange(from: Self.now) == nil)
    }

    @Test("explain shows each key's value with the lines that made it")
    func explain() throws {
        let policy = Policy.test("""
            [defaults]
            recording = allow
            hours = 08:00-20:00
            [group:kids]
            microphone = deny
            """, """
            [user:alice]
            hours = 09:00-17:00
            [app:org.example.Game]
            system-audio = deny
            """)
        let explanation = policy.explain(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(explanation.decision == policy.decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc))
        #expect(explanation.parts.map(\.key) == PolicyKey.allCases)
        let recording = try #require(explanation.part(.recording))
        #expect(recording.value == "allow")
        #expect(recording.lines == [PolicySourceLine(file: "1.conf", line: 2, section: "defaults", text: "recording = allow")])
        #expect(explanation.part(.microphone)?.value == "deny")
        #expect(explanation.part(.systemAudio)?.value == "deny")
        #expect(explanation.part(.systemAudio)?.lines.map { "\($0.file):\($0.line)" } == ["2.conf:4"])
        #expect(explanation.part(.hours)?.value == "09:00-17:00")
        #expect(explanation.part(.hours)?.lines.map { "\($0.file):\($0.line)" } == ["2.conf:2"])
        #expect(explanation.part(.maxDuration)?.value == "unlimited")
        #expect(explanation.part(.maxDuration)?.lines == [])
        let text = explanation.description
        #expect(text.contains("recording is available"))
        #expect(text.contains("hours = 09:00-17:00  (next change Mon 2025-03-24 17:00:00 Z)\n  2.conf:2: hours = 09:00-17:00  [user:alice]"))
        #expect(text.contains("max-duration = unlimited  (not set: built-in default)"))
        #expect(text.contains("microphone = deny\n  1.conf:5: microphone = deny  [group:kids]"))
        #expect(text.contains("system-audio = deny\n  2.conf:4: system-audio = deny  [app:org.example.Game]"))
    }

    @Test("explain of a broken policy lists the problems as reasons")
    func explainBroken() {
        let explanation = Policy.test("[defaults]\nrecording = yes").explain(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(!explanation.decision.isAvailable)
        #expect(explanation.description.contains("recording is unavailable:\n  1.conf:2: bad value 'yes' for 'recording': expected allow or deny"))
    }

    @Test("explain of a broken policy shows that nothing is allowed, as the decision does, not the loose lines")
    func explainBrokenAllowsNothing() {
        let policy = Policy.test("[defaults]\nrecordng = allow\nsystem-audio = allow\nsinks = encoder, raw")
        let explanation = policy.explain(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc)
        #expect(explanation.failedClosed && !explanation.isAvailable)
        #expect(explanation.decision == .failedClosed(policy.problems))
        #expect(explanation.parts.map(\.key) == PolicyKey.allCases)
        #expect(explanation.parts.map(\.value) == ["deny", "deny", "deny", "0s", "never", "0s", "none", "none"])
        #expect(explanation.parts.allSatisfy { $0.lines.isEmpty })
        let text = explanation.description
        #expect(text.contains("while the policy has problems, nothing is allowed:\nrecording = deny\nmicrophone = deny\n"
                              + "system-audio = deny\nmax-duration = 0s\nhours = never\nconsent-memory = 0s\nsinks = none\n"
                              + "output-dirs = none"), "\(text)")
        #expect(!text.contains("built-in default") && !text.contains("= any") && !text.contains("= allow"), "\(text)")
    }
}

@Suite("Policy output directories")
struct PolicyOutputTests {
    /// `<root>/allowed` is allowed; `<root>/outside` is not; symlinks point across.
    final class Tree {
        let fixture = PolicyFixture()
        var allowed: String { fixture.root + "/allowed" }
        var outside: String { fixture.root + "/outside" }
        init() throws {
            fixture.makeDirectory(allowed)
            fixture.makeDirectory(outside)
            fixture.makeDirectory(fixture.root + "/allowed-other")
            fixture.write(outside + "/existing.mkv", "")
            let fm = FileManager.default
            try fm.createSymbolicLink(atPath: allowed + "/escape", withDestinationPath: outside)
            try fm.createSymbolicLink(atPath: allowed + "/dangling.mkv", withDestinationPath: outside + "/new.mkv")
            try fm.createSymbolicLink(atPath: allowed + "/existing-link.mkv", withDestinationPath: outside + "/existing.mkv")
            try fm.createSymbolicLink(atPath: outside + "/into-allowed", withDestinationPath: allowed)
            try fm.createSymbolicLink(atPath: fixture.root + "/videos-link", withDestinationPath: allowed)
        }

        func decision(_ dirs: String, home: String? = nil) -> PolicyDecision {
            var subject = PolicySubject.alice
            subject.home = home
            return Policy.test("[defaults]\noutput-dirs = \(dirs)").decision(for: subject)
        }
    }

    @Test("paths are checked after resolving symlinks and ..", arguments: [
        ("allowed/x.mkv", true),
        ("allowed/new/sub/x.mkv", true),
        ("allowed/new/../x.mkv", true),
        ("allowed/new/../escape/x.mkv", false),      // back on disk after .., the symlink is followed again
        ("allowed/new/sub/../../escape/x.mkv", false),
        ("allowed/./x.mkv", true),
        ("allowed", true),
        ("allowed/../outside/x.mkv", false),
        ("allowed/escape/x.mkv", false),             // a symlink escaping the allowed directory
        ("allowed/escape/../outside/x.mkv", false),  // .. after the symlink leaves its target (read lexically: allowed/outside)
        ("allowed/escape/../allowed/x.mkv", true),   // ... and so this one lands back in allowed/
        ("allowed/dangling.mkv", false),             // writing would create outside/new.mkv
        ("allowed/existing-link.mkv", false),
        ("outside/into-allowed/x.mkv", true),        // it really lands in allowed/
        ("allowed-other/x.mkv", false),              // a name prefix is not a parent directory
        ("outside/x.mkv", false),
    ])
    func resolvedPaths(relative: String, allowed: Bool) throws {
        let tree = try Tree()
        #expect(tree.decision(tree.allowed).allowsOutput(tree.fixture.root + "/" + relative) == allowed)
    }

    @Test("an allowed directory written through root's symlink allows its target", .enabled(if: getuid() == 0))
    func allowedThroughSymlink() throws {
        let tree = try Tree()
        let decision = tree.decision(tree.fixture.root + "/videos-link")
        #expect(decision.allowedOutputDirs == [PolicyPath.realPath(tree.allowed)!])
        #expect(decision.allowsOutput(tree.allowed + "/x.mkv"))
    }

    @Test("a user's own symlink in an allowed directory's path is not followed, so it cannot move the folder",
          .enabled(if: getuid() == 0))
    func userSymlinkNotFollowed() throws {
        let tree = try Tree()
        // What `mv ~/Videos ~/Videos.real; ln -s / ~/Videos` does: the user's home holds a link of theirs.
        let home = tree.fixture.root + "/home"
        tree.fixture.makeDirectory(home)
        try FileManager.default.createSymbolicLink(atPath: home + "/Videos", withDestinationPath: tree.outside)
        #expect(lchown(home + "/Videos", 65534, 65534) == 0)
        let decision = tree.decision("~/Videos", home: home)
        #expect(decision.allowedOutputDirs == [PolicyPath.realPath(home)! + "/Videos"])
        #expect(!decision.allowsOutput(home + "/Videos/x.mkv"), "written through the user's link: lands in outside/")
        #expect(!decision.allowsOutput(tree.outside + "/x.mkv"))
    }

    @Test("~ is the recording user's home; without a known home it allows nothing")
    func homeExpansion() throws {
        let tree = try Tree()
        let home = tree.fixture.root + "/home"
        let decision = tree.decision("~/Videos", home: home)
        #expect(decision.allowedOutputDirs == [PolicyPath.realPath(home)! + "/Videos"])
        #expect(decision.allowsOutput(home + "/Videos/x.mkv"))
        #expect(!decision.allowsOutput(home + "/x.mkv"))
        let noHome = tree.decision("~/Videos", home: nil)
        #expect(noHome.allowedOutputDirs == [])
        #expect(!noHome.allowsOutput(home + "/Videos/x.mkv"))
    }
}

@Suite("Policy time zone")
struct PolicyTimeZoneTests {
    @Test("hours are read in the zone /etc/localtime names, then /etc/timezone, then UTC — never from TZ")
    func systemTimeZone() throws {
        let fixture = PolicyFixture()
        let link = fixture.root + "/localtime", file = fixture.root + "/timezone"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        fixture.write(file, "Asia/Tokyo\n")
        #expect(TimeZone.policySystem(localtime: link, timezoneFile: file).identifier == "Europe/Berlin")
        #expect(TimeZone.policySystem(localtime: fixture.root + "/none", timezoneFile: file).identifier == "Asia/Tokyo")
        #expect(TimeZone.policySystem(localtime: fixture.root + "/none", timezoneFile: fixture.root + "/none") == TimeZone(identifier: "UTC"))
    }

    @Test("a variable that points ICU at other time-zone rules fails hours closed, and leaves a policy without hours alone",
          arguments: ["ICU_TIMEZONE_FILES_DIR", "ICU_DATA"])
    func icuRuleOverridesFailHoursClosed(variable: String) {
        let inside = PolicyTestTime.date("2025-03-24 17:00")
        let hours = Policy.test("[defaults]\nhours = 16:00-18:00")
        let plain = hours.decision(from: hours.resolved(for: .alice), at: inside, timeZone: PolicyTestTime.utc,
                                   environment: ["PATH": "/usr/bin"])
        #expect(plain.isAvailable)
        let moved = hours.decision(from: hours.resolved(for: .alice), at: inside, timeZone: PolicyTestTime.utc,
                                   environment: [variable: "/home/alice/tz"])
        #expect(!moved.isAvailable)
        #expect(moved.reasons == [.timeZoneRulesOverridden(variables: [variable], lines: [
            PolicySourceLine(file: "1.conf", line: 2, section: "defaults", text: "hours = 16:00-18:00")])])
        #expect(moved.reasons.first?.description.contains("unset it") == true)
        let empty = hours.decision(from: hours.resolved(for: .alice), at: inside, timeZone: PolicyTestTime.utc,
                                   environment: [variable: ""])
        #expect(empty.isAvailable)
        let noHours = Policy.test("[defaults]\nmax-duration = 5m")
        #expect(noHours.decision(from: noHours.resolved(for: .alice), at: inside, timeZone: PolicyTestTime.utc,
                                 environment: [variable: "/home/alice/tz"]).isAvailable)
    }
}
