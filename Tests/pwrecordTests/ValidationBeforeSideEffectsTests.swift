import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// Options are validated before any side effect: a bad value exits 2 with one error line naming the option
/// and a hint, creates no file or folder, and never reaches the portal (no method of the backend is called,
/// so no consent dialog is shown).
@Suite("pwrecord validates options before any side effect", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct ValidationBeforeSideEffectsTests {
    /// Every method of the test backend a command could reach.
    static let portalMethods = ["CreateSession", "SelectSources", "Start", "Screenshot", "AccessDialog"]

    struct Outcome {
        var result: Pwrecord.Result
        var dialogs: UInt32
        var sessions: UInt32
        var calledMethods: [String]
        var workFolder: [String]
        var stateFolderExists: Bool
    }

    /// Runs `pwrecord arguments...` in a fresh home's work folder and reports what it left behind.
    static func run(_ arguments: [String]) async throws -> Outcome {
        let home = try TestHome()
        defer { home.remove() }
        return try await TestPortalControl.exclusively { control in
            let r = try await PwrecordProcess.run(arguments, environment: home.env, in: home.work, timeout: 30)
            var called: [String] = []
            for method in portalMethods where try await !control.lastOptions(method).isEmpty { called.append(method) }
            return Outcome(result: r, dialogs: try await control.stat("dialogs_shown"),
                           sessions: try await control.stat("sessions_created"), calledMethods: called,
                           workFolder: home.contents(of: home.work),
                           stateFolderExists: FileManager.default.fileExists(atPath: home.stateFolder.path))
        }
    }

    static let badRecordOptions: [(options: [String], name: String)] = [
        (["--crop", "0,0,0,120"], "--crop"),
        (["--duration", "1e3"], "--duration"),
        (["--duration", "169h"], "--duration"),
        (["--crop", "10,10"], "--crop"),
        (["--mask", "0,0,10,10", "--mask", "-5,0,10,10"], "--mask"),
        (["--mask", "a,b,c,d"], "--mask"),
        (["--sink", "nosuch:x=1"], "--sink"),
        (["--sink", "encoder:bogus=1"], "--sink"),
        (["--sink", "Not An Id"], "--sink"),
        (["--duration", "0"], "--duration"),
        (["--duration", "soon"], "--duration"),
        (["--fps", "300"], "--fps"),
        (["--cfr", "--vfr"], "--cfr"),
        (["--source", "region"], "--source"),
        (["--cursor", "blinking"], "--cursor"),
        (["--codec", "mpeg2"], "--codec"),
        (["--container", "avi"], "--container"),
        (["--bogus"], "--bogus"),
    ]

    @Test("a bad record option exits 2 naming it, before anything is written or asked", arguments: badRecordOptions)
    func badRecordOption(options: [String], name: String) async throws {
        let o = try await Self.run(["record", "-o", "out.mkv", "--duration", "1"] + options)
        Self.expectUsageError(o, naming: name, help: "pwrecord record --help")
    }

    @Test("-o - (standard output) exits 2 naming --output and the sinks that stream there; no file named '-' is made")
    func outputDashRefused() async throws {
        let o = try await Self.run(["record", "-o", "-", "--duration", "1"])
        Self.expectUsageError(o, naming: "--output", help: "pwrecord record --help")
        #expect(o.result.stderr.contains("--sink encoder:output=-"), "\(o.result.stderr)")
    }

    @Test("a bad option is a usage error even when the policy would refuse the sinks asked: options come before plugins and policy")
    func optionsBeforePolicy() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nsinks = encoder\n")
        let r = try await TestPortalControl.exclusively { _ in
            try await PwrecordProcess.run(["record", "-o", "out.mkv", "--sink", "nosuch", "--fps", "0"],
                                          environment: home.env, in: home.work, timeout: 30)
        }
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("'--fps'"), "\(r.stderr)")
    }

    @Test("an -o with an unknown extension exits 2 naming --output, before anything is written or asked")
    func badOutputExtension() async throws {
        let o = try await Self.run(["record", "-o", "out.avi", "--duration", "1"])
        Self.expectUsageError(o, naming: "--output", help: "pwrecord record --help")
    }

    @Test("an -o extension and a --container naming another container exit 2 saying both, before anything is written or asked")
    func extensionAgainstContainer() async throws {
        let o = try await Self.run(["record", "-o", "cm.mkv", "--container", "mp4", "--duration", "1"])
        #expect(o.result.status == 2, "\(o.result.stderr)")
        #expect(o.result.stderr.contains("output cm.mkv names the mkv container, but the recording is mp4"), "\(o.result.stderr)")
        #expect(!o.result.stderr.contains("invalid value ''"), "\(o.result.stderr)")
        Self.expectNothingHappened(o)
    }

    static let badSinkOutputs: [(options: [String], status: Int32, says: String)] = [
        (["--sink", "raw:output=nodir/x.y4m"], 1, "/nodir/x.y4m: the folder"),
        (["--sink", "frames:output=nodir/sub"], 1, "/nodir/sub: the folder"),
        (["--sink", "encoder:output=nodir/a.mkv"], 1, "/nodir/a.mkv: the folder"),
        (["--sink", "raw"], 2, "no output path"),
        (["--sink", "raw:output=-", "--mic"], 2, "give audio=FILE"),
    ]

    @Test("a sink output that cannot be written is refused before the portal is asked, naming the path in full",
          arguments: badSinkOutputs)
    func badSinkOutput(options: [String], status: Int32, says: String) async throws {
        let o = try await Self.run(["record", "-o", "out.mkv", "--duration", "1"] + options)
        #expect(o.result.status == status, "\(o.result.stderr)")
        #expect(o.result.stderr.contains(says), "\(o.result.stderr)")
        #expect(o.result.stdout.isEmpty, "\(o.result.stdout.prefix(80))")
        Self.expectNothingHappened(o)
    }

    static let badScreenshotOptions: [(options: [String], name: String)] = [
        (["-o", "shot.gif"], "--output"),
        (["--long", "--idle-stop", "never"], "--idle-stop"),
        (["--long", "--max-height", "5"], "--max-height"),
        (["--window", "--bogus"], "--bogus"),
        (["--idle-stop", "5"], "--idle-stop"),
        (["--max-height", "500"], "--max-height"),
        (["--long", "--interactive"], "--interactive"),
        (["-o", ""], "--output"),
    ]

    @Test("a bad screenshot option exits 2 naming it, before the portal is asked", arguments: badScreenshotOptions)
    func badScreenshotOption(options: [String], name: String) async throws {
        let o = try await Self.run(["screenshot"] + options)
        Self.expectUsageError(o, naming: name, help: "pwrecord screenshot --help")
    }

    @Test("an app id that cannot name a folder exits 2 before anything is written or asked")
    func badAppID() async throws {
        let o = try await Self.run(["record", "-o", "out.mkv", "--duration", "1", "--app-id", "../evil"])
        #expect(o.result.status == 2, "\(o.result.stderr)")
        #expect(o.result.stderr.hasPrefix("pwrecord: error: ") && o.result.stderr.contains("app id '../evil'"), "\(o.result.stderr)")
        Self.expectNothingHappened(o)
    }

    @Test("an existing -o without --force is refused before consent is asked, and the file is left alone")
    func existingOutput() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let existing = home.work.appendingPathComponent("taken.mkv")
        try Data("keep me".utf8).write(to: existing)
        let (r, dialogs, calls) = try await TestPortalControl.exclusively { control in
            let r = try await PwrecordProcess.run(["record", "-o", "taken.mkv", "--duration", "1"], environment: home.env, in: home.work)
            var called: [String] = []
            for method in Self.portalMethods where try await !control.lastOptions(method).isEmpty { called.append(method) }
            return (r, try await control.stat("dialogs_shown"), called)
        }
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("exists") && r.stderr.contains("--force"), "\(r.stderr)")
        #expect(dialogs == 0 && calls.isEmpty, "\(calls)")
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
    }

    /// Exit 2, one `pwrecord: error:` line naming `name`, one hint line pointing at `help`, nothing printed on
    /// stdout, and nothing happened.
    static func expectUsageError(_ o: Outcome, naming name: String, help: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let r = o.result
        #expect(r.status == 2, "\(r.stderr)", sourceLocation: sourceLocation)
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty, "two lines expected: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("pwrecord: error: ") == true && lines.first?.contains("'\(name)'") == true,
                "the error should name '\(name)': \(r.stderr)", sourceLocation: sourceLocation)
        #expect(lines.dropFirst().first == "pwrecord: hint: see '\(help)'", "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, "\(r.stdout)", sourceLocation: sourceLocation)
        expectNothingHappened(o, sourceLocation: sourceLocation)
    }

    static func expectNothingHappened(_ o: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.calledMethods.isEmpty, "the portal was called: \(o.calledMethods)", sourceLocation: sourceLocation)
        #expect(o.dialogs == 0 && o.sessions == 0, "dialogs \(o.dialogs), sessions \(o.sessions)", sourceLocation: sourceLocation)
        #expect(o.workFolder.isEmpty, "files were created: \(o.workFolder)", sourceLocation: sourceLocation)
        #expect(!o.stateFolderExists, "the state folder was created", sourceLocation: sourceLocation)
    }
}
