import Foundation
import Testing
@testable import PortalCapture

/// Precedence inside one file: who (user over groups) and what (app and exe) both apply, the stricter wins;
/// [defaults] only for keys no matching section sets; deny wins at equal rank.
@Suite("Policy precedence")
struct PolicyPrecedenceTests {
    static let now = PolicyTestTime.date("2025-03-24 10:00")

    static func decide(_ text: String, _ subject: PolicySubject = .alice) -> PolicyDecision {
        let policy = Policy.test(text)
        #expect(policy.problems == [])
        return policy.decision(for: subject, at: now, timeZone: PolicyTestTime.utc)
    }

    @Test("no policy at all allows everything")
    func unrestricted() {
        #expect(Policy.unrestricted.decision(for: .alice, at: Self.now, timeZone: PolicyTestTime.utc) == .unrestricted)
    }

    @Test("defaults apply when no section matches the subject")
    func defaultsApply() {
        let decision = Self.decide("""
            [defaults]
            recording = deny
            [user:bob]
            recording = allow
            [group:staff]
            recording = allow
            [app:org.other.App]
            recording = allow
            [exe:/usr/bin/other]
            recording = allow
            """)
        #expect(decision.reasons == [.recordingDenied(PolicySourceLine(file: "1.conf", line: 2, section: "defaults",
                                                                        text: "recording = deny"))])
    }

    @Test("a group section overrides defaults, and a user section overrides the group for that user")
    func userOverridesGroupOverridesDefaults() {
        let text = """
            [defaults]
            max-duration = 2h
            [group:kids]
            max-duration = 10m
            [user:alice]
            max-duration = 1h
            """
        #expect(Self.decide(text).maxDuration == .seconds(3_600))
        let otherKid = PolicySubject(user: "carol", groups: ["kids"])
        #expect(Self.decide(text, otherKid).maxDuration == .seconds(600))
        #expect(Self.decide(text, PolicySubject(user: "dad", groups: ["dad"])).maxDuration == .seconds(7_200))
    }

    @Test("an app section can allow an app that defaults deny (an allow-list of apps)")
    func appAllowsOverDefaultDeny() {
        let text = "[defaults]\nrecording = deny\n[app:org.example.Game]\nrecording = allow"
        #expect(Self.decide(text).isAvailable)
        var other = PolicySubject.alice
        other.appID = "org.example.Other"
        #expect(!Self.decide(text, other).isAvailable)
    }

    @Test("who and what both apply, so a deny on either side wins",
          arguments: [("[user:alice]\nrecording = deny\n[app:org.example.Game]\nrecording = allow", 2),
                      ("[user:alice]\nrecording = allow\n[app:org.example.Game]\nrecording = deny", 4),
                      ("[group:kids]\nrecording = deny\n[exe:/usr/bin/game]\nrecording = allow", 2),
                      ("[defaults]\nrecording = deny\n[user:alice]\nrecording = allow\n[exe:/usr/bin/game]\nrecording = deny", 6)])
    func denyOnEitherAxisWins(text: String, denyingLine: Int) {
        let decision = Self.decide(text)
        #expect(!decision.isAvailable)
        guard case .recordingDenied(let source) = decision.reasons.first else {
            Issue.record("expected recordingDenied, got \(decision.reasons)")
            return
        }
        #expect(source.line == denyingLine)
    }

    @Test("deny wins at equal rank: two groups, or an app and an executable section")
    func denyWinsAtEqualRank() {
        let groups = Self.decide("[group:alice]\nrecording = allow\nmicrophone = deny\nsystem-audio = allow\n"
                                 + "[group:kids]\nrecording = deny\nmicrophone = allow\nsystem-audio = deny")
        #expect(groups.reasons == [.recordingDenied(PolicySourceLine(file: "1.conf", line: 6, section: "group:kids",
                                                                      text: "recording = deny"))])
        #expect(!groups.microphoneAllowed)
        #expect(!groups.systemAudioAllowed)
        let appExe = Self.decide("[exe:/usr/bin/game]\nrecording = deny\n[app:org.example.Game]\nrecording = allow")
        #expect(!appExe.isAvailable)
        // Order in the file does not matter.
        let swapped = Self.decide("[group:kids]\nrecording = deny\n[group:alice]\nrecording = allow")
        #expect(!swapped.isAvailable)
    }

    @Test("at equal rank every key takes the stricter value")
    func equalRankIsStricter() {
        let decision = Self.decide("""
            [group:alice]
            max-duration = 1h
            hours = 08:00-20:00
            consent-memory = 8m
            sinks = encoder, raw
            output-dirs = /home/alice
            [group:kids]
            max-duration = 10m
            hours = 09:00-22:00
            consent-memory = unlimited
            sinks = raw, callback
            output-dirs = /home/alice/Videos, /srv
            """)
        #expect(decision.maxDuration == .seconds(600))
        #expect(decision.consentMemory == .seconds(480))
        #expect(decision.allowedSinks == ["raw"])
        #expect(decision.allowedOutputDirs == ["/home/alice/Videos"])
        #expect(decision.nextChange == PolicyTestTime.date("2025-03-24 20:00"))
    }

    @Test("system-audio follows who and what like microphone: the user beats her groups, and an app's deny wins")
    func systemAudioPrecedence() {
        let userBeatsGroup = Self.decide("[group:kids]\nsystem-audio = deny\n[user:alice]\nsystem-audio = allow")
        #expect(userBeatsGroup.systemAudioAllowed)
        let appDenies = Self.decide("[user:alice]\nsystem-audio = allow\n[app:org.example.Game]\nsystem-audio = deny")
        #expect(!appDenies.systemAudioAllowed)
        #expect(appDenies.microphoneAllowed && appDenies.isAvailable, "only system audio is denied")
        let defaultsOnly = Self.decide("[defaults]\nsystem-audio = deny\n[app:org.example.Game]\nsystem-audio = allow")
        #expect(defaultsOnly.systemAudioAllowed, "a matching section beats [defaults]")
    }

    @Test("keys are decided one by one: a section that sets one key leaves the others to defaults")
    func keysAreIndependent() {
        let decision = Self.decide("""
            [defaults]
            microphone = deny
            max-duration = 30m
            [group:kids]
            hours = 16:00-18:00
            [app:org.example.Game]
            recording = allow
            """)
        #expect(!decision.microphoneAllowed)
        #expect(decision.maxDuration == .seconds(1_800))
        #expect(decision.reasons == [.outsideHours(allowed: PolicyHoursTests.hours("16:00-18:00"),
                                                   lines: [PolicySourceLine(file: "1.conf", line: 5, section: "group:kids",
                                                                            text: "hours = 16:00-18:00")])])
    }

    @Test("an exe section matches the executable, also when written through a symlink")
    func executableMatchesThroughSymlink() throws {
        let fixture = PolicyFixture()
        let real = fixture.root + "/bin/real-game"
        fixture.write(real, "")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/bin/game", withDestinationPath: real)
        var subject = PolicySubject.alice
        subject.executable = real
        #expect(!Self.decide("[exe:\(fixture.root)/bin/game]\nrecording = deny", subject).isAvailable)
        #expect(!Self.decide("[exe:\(real)]\nrecording = deny", subject).isAvailable)
        #expect(Self.decide("[exe:\(fixture.root)/bin/other]\nrecording = deny", subject).isAvailable)
    }

    @Test("a section for an executable's link and one for its target both apply, in either order")
    func linkAndTargetSectionsBothApply() throws {
        let fixture = PolicyFixture()
        let real = fixture.root + "/bin/python3.11"
        fixture.write(real, "")
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/bin/python3", withDestinationPath: real)
        var subject = PolicySubject.alice
        subject.executable = real
        let link = "[exe:\(fixture.root)/bin/python3]\nrecording = deny\nmax-duration = 10m\n"
        let target = "[exe:\(real)]\nmax-duration = 5m\n"
        for text in [link + target, target + link] {
            #expect(!Self.decide(text, subject).isAvailable, "\(text)")
        }
        let limits = Self.decide("[exe:\(fixture.root)/bin/python3]\nmax-duration = 10m\n[exe:\(real)]\nmax-duration = 5m\n", subject)
        #expect(limits.maxDuration == .seconds(300))
        let swapped = Self.decide("[exe:\(real)]\nmax-duration = 5m\n[exe:\(fixture.root)/bin/python3]\nmax-duration = 10m\n", subject)
        #expect(swapped.maxDuration == .seconds(300))
    }
}
