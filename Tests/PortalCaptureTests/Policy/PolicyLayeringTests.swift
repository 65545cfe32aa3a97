import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture

/// The files: policy.conf, then policy.d/*.conf, then the user file; each later layer may only tighten; any
/// problem with a file fails closed.
@Suite("Policy layering and trust")
struct PolicyLayeringTests {
    static let now = PolicyTestTime.date("2025-03-24 10:00")

    static func decide(_ fixture: PolicyFixture, _ subject: PolicySubject = .alice) -> PolicyDecision {
        fixture.load().decision(for: subject, at: now, timeZone: PolicyTestTime.utc)
    }

    @Test("a missing system directory means no restrictions")
    func missingSystemDirectory() {
        let fixture = PolicyFixture(createSystemDirectory: false)
        let policy = fixture.load()
        #expect(policy.problems == [])
        #expect(policy.files == [])
        #expect(Self.decide(fixture) == .unrestricted)
    }

    @Test("an empty system directory means no restrictions")
    func emptySystemDirectory() {
        let fixture = PolicyFixture()
        fixture.makeDirectory(fixture.dropIns)
        #expect(Self.decide(fixture) == .unrestricted)
    }

    @Test("drop-ins are read after policy.conf in byte order; hidden and non-.conf files are skipped")
    func dropInOrder() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\n")
        for name in ["a.conf", "Z.conf", "2-b.conf", "10-a.conf", ".hidden.conf", "notes.txt", "x.conf~", "y.conf.dpkg-old"] {
            fixture.write(fixture.dropIns + "/" + name, name.hasSuffix(".conf") ? "[defaults]\n" : "garbage")
        }
        fixture.write(fixture.userFile, "[defaults]\n")
        let policy = fixture.load()
        #expect(policy.problems == [])
        #expect(policy.files == [fixture.system + "/policy.conf"]
                + ["10-a.conf", "2-b.conf", "Z.conf", "a.conf"].map { fixture.dropIns + "/" + $0 } + [fixture.userFile])
    }

    @Test("a drop-in cannot loosen policy.conf, whatever it sets")
    func dropInCannotLoosen() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", """
            [defaults]
            recording = deny
            microphone = deny
            max-duration = 30m
            hours = 08:00-20:00
            consent-memory = 8m
            sinks = encoder, raw
            output-dirs = ~/Videos
            system-audio = deny
            """)
        fixture.write(fixture.dropIns + "/50-loosen.conf", """
            [user:alice]
            recording = allow
            microphone = allow
            system-audio = allow
            max-duration = unlimited
            hours = always
            consent-memory = unlimited
            sinks = encoder, raw, callback
            output-dirs = /
            """)
        let decision = Self.decide(fixture)
        #expect(decision.reasons == [.recordingDenied(PolicySourceLine(
            file: fixture.system + "/policy.conf", line: 2, section: "defaults", text: "recording = deny"))])
        #expect(!decision.microphoneAllowed)
        #expect(!decision.systemAudioAllowed)
        #expect(decision.maxDuration == .seconds(1_800))
        #expect(decision.consentMemory == .seconds(480))
        #expect(decision.allowedSinks == ["encoder", "raw"])
        #expect(decision.allowedOutputDirs == ["/home/alice/Videos"])
        #expect(decision.nextChange == PolicyTestTime.date("2025-03-24 20:00"))
    }

    @Test("a drop-in can tighten: shorter limits, common hours, common sinks and directories")
    func dropInTightens() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", """
            [defaults]
            max-duration = 30m
            hours = 08:00-20:00
            sinks = encoder, raw
            output-dirs = ~, /srv/shared
            """)
        fixture.write(fixture.dropIns + "/kids.conf", """
            [group:kids]
            max-duration = 10m
            hours = 09:00-12:00, 16:00-22:00
            sinks = raw, callback
            output-dirs = ~/Videos, /tmp
            microphone = deny
            system-audio = deny
            """)
        let decision = Self.decide(fixture)
        #expect(decision.isAvailable)
        #expect(decision.maxDuration == .seconds(600))
        #expect(decision.allowedSinks == ["raw"])
        #expect(decision.allowedOutputDirs == ["/home/alice/Videos"])
        #expect(!decision.microphoneAllowed)
        #expect(!decision.systemAudioAllowed)
        #expect(decision.nextChange == PolicyTestTime.date("2025-03-24 12:00"))
        // Someone outside the group gets only policy.conf.
        let dad = Self.decide(fixture, PolicySubject(user: "dad", groups: ["dad"], home: "/home/dad"))
        #expect(dad.maxDuration == .seconds(1_800))
        #expect(dad.microphoneAllowed)
        #expect(dad.systemAudioAllowed)
    }

    @Test("layers with no output folder in common allow none, and the refusal says so")
    func noCommonOutputFolder() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\noutput-dirs = /srv/recordings")
        fixture.write(fixture.userFile, "[defaults]\noutput-dirs = ~/Videos")
        let decision = Self.decide(fixture)
        #expect(decision.isAvailable && decision.allowedOutputDirs == [])
        #expect(OutputPlace.refusal(placing: "/srv/recordings/a.mkv", decision)
                == "the policy does not allow saving recordings or screenshots in /srv/recordings (allowed: none)")
    }

    @Test("the user file cannot loosen the system policy")
    func userFileCannotLoosen() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[group:kids]\nrecording = deny\nmax-duration = 30m\nhours = 16:00-18:00")
        fixture.write(fixture.userFile, "[defaults]\nrecording = allow\nmax-duration = 2h\nhours = always\n[user:alice]\nrecording = allow")
        let decision = Self.decide(fixture)
        #expect(decision.reasons.count == 2)
        #expect(decision.reasons.first == .recordingDenied(PolicySourceLine(
            file: fixture.system + "/policy.conf", line: 2, section: "group:kids", text: "recording = deny")))
        #expect(decision.maxDuration == .seconds(1_800))
    }

    @Test("the user file can tighten")
    func userFileTightens() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nmax-duration = 30m")
        fixture.write(fixture.userFile, "[defaults]\nmax-duration = 5m\nmicrophone = deny\nsystem-audio = deny\n[app:org.example.Game]\nrecording = deny")
        let decision = Self.decide(fixture)
        #expect(decision.maxDuration == .seconds(300))
        #expect(!decision.microphoneAllowed)
        #expect(!decision.systemAudioAllowed)
        #expect(decision.reasons == [.recordingDenied(PolicySourceLine(
            file: fixture.userFile, line: 6, section: "app:org.example.Game", text: "recording = deny"))])
    }

    @Test("a user file alone applies even without a system directory")
    func userFileWithoutSystem() {
        let fixture = PolicyFixture(createSystemDirectory: false)
        fixture.write(fixture.userFile, "[defaults]\nrecording = deny")
        #expect(!Self.decide(fixture).isAvailable)
    }

    @Test("a world- or group-writable system file makes recording unavailable, with its reason",
          arguments: [0o666, 0o664, 0o646] as [mode_t])
    func writableSystemFile(mode: mode_t) {
        let fixture = PolicyFixture()
        let file = fixture.dropIns + "/10-open.conf"
        fixture.write(file, "[defaults]\nrecording = allow", mode: mode)
        let decision = Self.decide(fixture)
        #expect(!decision.isAvailable)
        #expect(decision.reasons.map(\.description) == [
            "\(file): writable by group or others (mode 0\(String(mode, radix: 8))); run 'chmod go-w \(file)'"])
        #expect(decision == .failedClosed(decision.reasons))
    }

    @Test("a group-writable system directory makes recording unavailable")
    func writableSystemDirectory() {
        let fixture = PolicyFixture()
        fixture.makeDirectory(fixture.dropIns, mode: 0o775)
        let decision = Self.decide(fixture)
        #expect(decision.reasons == [.writableByOthers(path: fixture.dropIns, mode: 0o40775)])
        #expect(decision.reasons.first?.description
                == "\(fixture.dropIns): writable by group or others (mode 0775); run 'chmod go-w \(fixture.dropIns)'")
    }

    @Test("system files not owned by the trusted owner make recording unavailable")
    func wrongOwner() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nrecording = allow")
        let owner = geteuid()
        fixture.trustedOwner = owner + 1
        let decision = Self.decide(fixture)
        #expect(!decision.isAvailable)
        #expect(decision.reasons == [
            .untrustedOwner(path: fixture.system, owner: owner, expected: owner + 1),
            .untrustedOwner(path: fixture.system + "/policy.conf", owner: owner, expected: owner + 1)])
        #expect(decision.reasons[1].description == "\(fixture.system)/policy.conf: owned by uid \(owner), not by uid "
                + "\(owner + 1); run 'chown \(owner + 1) \(fixture.system)/policy.conf'")
        #expect(PolicyError.untrustedOwner(path: "/etc/pwrecord/policy.conf", owner: 1000, expected: 0).description
                == "/etc/pwrecord/policy.conf: owned by uid 1000, not by root; run 'chown root /etc/pwrecord/policy.conf'")
    }

    @Test("the user file needs no trusted owner and may be group-writable (it can only tighten)")
    func userFileNotTrustChecked() {
        let fixture = PolicyFixture()
        fixture.trustedOwner = geteuid() + 1
        try? FileManager.default.removeItem(atPath: fixture.system)
        fixture.write(fixture.userFile, "[defaults]\nmax-duration = 5m", mode: 0o666)
        let decision = Self.decide(fixture)
        #expect(decision.isAvailable)
        #expect(decision.maxDuration == .seconds(300))
    }

    @Test("a syntax error in a drop-in fails closed with its file:line reason")
    func syntaxErrorFailsClosed() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nrecording = allow")
        fixture.write(fixture.dropIns + "/20-typo.conf", "[group:kids]\nhours = 16:00-18:00\nmax-duration = 30 minutes")
        let decision = Self.decide(fixture)
        #expect(decision.reasons.map(\.description) == [
            "\(fixture.dropIns)/20-typo.conf:3: bad duration '30 minutes' for 'max-duration': "
                + "unknown unit ' '; use s, m, h or d (e.g. 30m, 1h30m)"])
        #expect(decision == .failedClosed(decision.reasons))
        #expect(!decision.microphoneAllowed && decision.allowedSinks == [] && decision.allowedOutputDirs == [])
        #expect(!decision.systemAudioAllowed)
    }

    @Test("a broken user file also makes recording unavailable")
    func brokenUserFile() {
        let fixture = PolicyFixture()
        fixture.write(fixture.userFile, "[defaults]\nrecording = nope")
        let decision = Self.decide(fixture)
        #expect(decision.reasons.map(\.description) == [
            "\(fixture.userFile):2: bad value 'nope' for 'recording': expected allow or deny"])
    }

    @Test("files that cannot be read fail closed: a dangling drop-in symlink, a directory, invalid UTF-8")
    func unreadableFiles() throws {
        let fixture = PolicyFixture()
        try FileManager.default.createDirectory(atPath: fixture.dropIns, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.dropIns + "/a.conf", withDestinationPath: "/nonexistent")
        fixture.makeDirectory(fixture.dropIns + "/b.conf")
        let bad: [UInt8] = Array("[defaults]\nrecording = ".utf8) + [0xFF, 0xFE]
        try Data(bad).write(to: URL(fileURLWithPath: fixture.dropIns + "/c.conf"))
        chmod(fixture.dropIns + "/c.conf", 0o644)
        #expect(mkfifo(fixture.dropIns + "/d.conf", 0o644) == 0)  // must not block the reader
        let decision = Self.decide(fixture)
        #expect(decision.reasons.map(\.description) == [
            "\(fixture.dropIns)/a.conf: cannot read: a symlink to something that does not exist; recording stays unavailable until it can be read",
            "\(fixture.dropIns)/b.conf: not a regular file; replace it with a policy file or remove it",
            "\(fixture.dropIns)/c.conf: not valid UTF-8; save it as UTF-8 text",
            "\(fixture.dropIns)/d.conf: not a regular file; replace it with a policy file or remove it",
        ])
    }

    @Test("a dangling symlink in place of policy.conf, policy.d or the system directory fails closed: it is not 'no files'",
          arguments: ["policy.conf", "policy.d", ""])
    func danglingOptionalPlaces(name: String) throws {
        let fixture = PolicyFixture(createSystemDirectory: name != "")
        let place = name.isEmpty ? fixture.system : fixture.system + "/" + name
        try FileManager.default.createSymbolicLink(atPath: place, withDestinationPath: "/nonexistent-\(UUID().uuidString)")
        let decision = Self.decide(fixture)
        #expect(!decision.isAvailable)
        #expect(decision.reasons == [.unreadable(path: place, reason: "a symlink to something that does not exist")])
    }

    @Test("a file or directory the reader may not open fails closed", .enabled(if: geteuid() != 0, "root can read any file"))
    func permissionDenied() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\n", mode: 0o000)
        fixture.makeDirectory(fixture.dropIns, mode: 0o300)
        #expect(Self.decide(fixture).reasons == [.permissionDenied(path: fixture.system + "/policy.conf", isDirectory: false),
                                                 .permissionDenied(path: fixture.dropIns, isDirectory: true)])
    }

    @Test("a file nobody but root may read says how to make it readable")
    func permissionDeniedHint() {
        #expect(PolicyError.permissionDenied(path: "/etc/pwrecord/policy.conf", isDirectory: false).description
                == "/etc/pwrecord/policy.conf: cannot read: Permission denied; make it readable by everyone with "
                + "'chmod 644 /etc/pwrecord/policy.conf' (recording stays unavailable until it can be read)")
        #expect(PolicyError.permissionDenied(path: "/etc/pwrecord/policy.d", isDirectory: true).description
                == "/etc/pwrecord/policy.d: cannot read: Permission denied; make it readable by everyone with "
                + "'chmod 755 /etc/pwrecord/policy.d' (recording stays unavailable until it can be read)")
    }

    @Test("a system directory that is a file fails closed")
    func systemDirectoryIsAFile() {
        let fixture = PolicyFixture(createSystemDirectory: false)
        fixture.write(fixture.system, "")
        #expect(Self.decide(fixture).reasons == [.notDirectory(path: fixture.system)])
    }

    @Test("checking a draft reports its problems, and ownership only when asked")
    func checkFile() {
        let fixture = PolicyFixture()
        let draft = fixture.root + "/draft.conf"
        fixture.write(draft, "[defaults]\nrecording = deny\nhours = 9-17", mode: 0o666)
        #expect(Policy.check(file: draft).map(\.description) == [
            "\(draft):3: bad hours '9-17': bad time '9'; write times as HH:MM, e.g. 08:00"])
        #expect(Policy.check(file: draft, trustedOwner: geteuid()).first == .writableByOthers(path: draft, mode: 0o100666))
        #expect(Policy.check(file: fixture.root + "/missing.conf")
                == [.unreadable(path: fixture.root + "/missing.conf", reason: "No such file or directory")])
    }

    @Test("the user file is found through XDG_CONFIG_HOME, else ~/.config")
    func defaultUserFile() {
        #expect(PolicyLocations.defaultUserFile(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/h"])
                == "/x/config/pwrecord/policy.conf")
        #expect(PolicyLocations.defaultUserFile(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
                == "/h/.config/pwrecord/policy.conf")
        #expect(PolicyLocations.defaultUserFile(environment: ["HOME": "/h"]) == "/h/.config/pwrecord/policy.conf")
        #expect(PolicyLocations().systemDirectory == "/etc/pwrecord")
        #expect(PolicyLocations().trustedOwner == 0)
    }
}
