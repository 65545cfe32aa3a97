import Foundation
import Glibc
import Testing

/// `pwrecord policy explain [--user U] [--app A] [--at TIME]`: the decision and the file lines behind it.
@Suite("pwrecord policy explain")
struct PolicyExplainTests {
    static let policy = """
        [defaults]
        max-duration = 30m

        [app:org.example.Game]
        hours = 16:00-18:00
        microphone = deny
        system-audio = deny

        [exe:/usr/bin/true]
        recording = deny
        """

    /// The name of the user running the tests.
    static var me: String { getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root" }

    func explain(_ arguments: [String]) async throws -> (result: Pwrecord.Result, file: String) {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy(Self.policy)
        return (try await Pwrecord.run(["policy", "explain"] + arguments, environment: home.env), home.userPolicyFile.path)
    }

    @Test("outside the app's hours: exit 4, the user, app and time asked about, and the hours line that decided")
    func outsideHours() async throws {
        let (r, file) = try await explain(["--user", Self.me, "--app", "org.example.Game", "--at", "21:00"])
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("user \(Self.me) (groups: ") == true && lines.first?.contains("app org.example.Game") == true,
                "\(lines.first ?? "")")
        #expect(lines.contains { $0.hasPrefix("at ") && $0.contains(" 21:00:00") }, "\(r.stdout)")
        #expect(lines.contains("files: \(file)"))
        #expect(lines.contains("recording is unavailable:"), "\(r.stdout)")
        #expect(lines.contains { $0.contains("outside the allowed recording hours") && $0.contains("\(file):5 [app:org.example.Game]") },
                "the reason names the line: \(r.stdout)")
        // Each setting with the line it comes from, or the built-in default.
        #expect(lines.contains("  \(file):5: hours = 16:00-18:00  [app:org.example.Game]"))
        #expect(lines.contains("  \(file):6: microphone = deny  [app:org.example.Game]"))
        #expect(lines.contains("system-audio = deny"), "\(r.stdout)")
        #expect(lines.contains("  \(file):7: system-audio = deny  [app:org.example.Game]"))
        #expect(lines.contains("  \(file):2: max-duration = 30m  [defaults]"))
        #expect(lines.contains("recording = allow  (not set: built-in default)"))
    }

    @Test("inside the hours, given as a full date and time: exit 0, available, when the hours change next")
    func insideHours() async throws {
        let (r, file) = try await explain(["--app", "org.example.Game", "--at", "2030-01-07T17:30"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("at ") && $0.contains("2030-01-07 17:30:00") }, "\(r.stdout)")
        #expect(lines.contains("recording is available"))
        #expect(lines.contains { $0.hasPrefix("hours = 16:00-18:00  (next change ") && $0.contains("2030-01-07 18:00:00") }, "\(r.stdout)")
        #expect(lines.contains("  \(file):5: hours = 16:00-18:00  [app:org.example.Game]"))
    }

    @Test("another app is only bound by the defaults")
    func otherApp() async throws {
        let (r, file) = try await explain(["--app", "org.example.Other", "--at", "21:00"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("app org.example.Other") == true)
        #expect(lines.contains("hours = always  (not set: built-in default)"))
        #expect(lines.contains("microphone = allow  (not set: built-in default)"))
        #expect(lines.contains("system-audio = allow  (not set: built-in default)"))
        #expect(lines.contains("  \(file):2: max-duration = 30m  [defaults]"))
    }

    @Test("--exe explains for another executable: its [exe:PATH] section applies, symlinks resolved; a relative path is a usage error")
    func executable() async throws {
        let (denied, file) = try await explain(["--exe", "/usr/bin/true", "--at", "21:00"])
        #expect(denied.status == 4, "\(denied.stdout)\(denied.stderr)")
        #expect(denied.stdout.contains("  \(file):10: recording = deny  [exe:/usr/bin/true]"), "\(denied.stdout)")
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("true-link-\(getpid())")
        try? FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/usr/bin/true")
        defer { try? FileManager.default.removeItem(at: link) }
        let (viaLink, _) = try await explain(["--exe", link.path, "--at", "21:00"])
        #expect(viaLink.status == 4, "\(viaLink.stdout)")
        let (other, _) = try await explain(["--exe", "/usr/bin/false", "--at", "21:00"])
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        let (relative, _) = try await explain(["--exe", "bin/true"])
        #expect(relative.status == 2 && relative.stderr.contains("--exe"), "\(relative.stderr)")
    }

    @Test("--user without --exe still applies the [exe:] section of pwrecord's own executable, as record does")
    func userKeepsOwnExecutable() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let own = Pwrecord.binary.resolvingSymlinksInPath().path
        try home.writeUserPolicy("[exe:\(own)]\nrecording = deny\n")
        let r = try await Pwrecord.run(["policy", "explain", "--user", Self.me], environment: home.env)
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("recording = deny  [exe:\(own)]"), "\(r.stdout)")
    }

    @Test("--user of another user applies their user file, not the caller's", .enabled(if: getpwnam("nobody") != nil))
    func otherUsersOwnFile() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nrecording = deny\n")   // the caller's file: not nobody's
        let other = try await Pwrecord.run(["policy", "explain", "--user", "nobody"], environment: home.env)
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        #expect(!other.stdout.contains(home.userPolicyFile.path), "\(other.stdout)")
        let mine = try await Pwrecord.run(["policy", "explain", "--user", Self.me], environment: home.env)
        #expect(mine.status == 4, "\(mine.stdout)\(mine.stderr)")
    }

    @Test("policy without a subcommand is a usage error pointing at its help")
    func missingSubcommand() async throws {
        let r = try await Pwrecord.run(["policy"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("'policy' needs a subcommand: check or explain"), "\(r.stderr)")
    }

    @Test("an unknown user is a usage error naming --user")
    func unknownUser() async throws {
        let (r, _) = try await explain(["--user", "no-such-user-\(getpid())"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("pwrecord: error: invalid value 'no-such-user-\(getpid())' for '--user': "), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("pwrecord: hint: see 'pwrecord policy explain --help'\n"))
    }
}
