import Foundation
import Testing
@testable import pwrecord

@Suite("pwrecord policy")
struct PolicyCommandTests {
    @Test("policy check reports file:line for a broken file and exits 1")
    func checkReportsFileAndLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).conf")
        try "[defaults]\nrecording = allow\nmax-duration = soon\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try await Pwrecord.run(["policy", "check", file.path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("\(file.path):3: "))
        #expect(r.stdout.contains("max-duration"))
    }

    @Test("policy check accepts a valid root-owned file")
    func checkAcceptsValidFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).conf")
        try "[defaults]\nrecording = allow\nmax-duration = 30m\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try #require(getuid() == 0, "the file must be root-owned to pass as a system file")
        chmod(file.path, 0o644)
        let r = try await Pwrecord.run(["policy", "check", file.path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("ok"))
    }

    @Test("policy check warns about names that match nothing, and still exits 0: the decision does not change")
    func checkWarnsAboutTypos() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[group:nosuchgroup-pwrecord]\nrecording = deny\n[user:nosuchuser-pwrecord]\nrecording = deny\n"
                                 + "[exe:/no/such/exe]\nrecording = deny\n[defaults]\nsinks = encoder,nosuchsink\n")
        let file = home.userPolicyFile.path
        let r = try await Pwrecord.run(["policy", "check"], environment: home.env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(file):1: warning: no group 'nosuchgroup-pwrecord'") }, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(file):3: warning: no user 'nosuchuser-pwrecord'") }, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(file):5: warning: /no/such/exe does not exist") }, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(file):8: warning: unknown sink 'nosuchsink' in 'sinks'")
                                 && ["callback", "encoder", "frames", "null", "raw"].allSatisfy($0.contains) }, "\(r.stdout)")
        #expect(lines.last == "\(file): ok (4 warnings: the policy works as written)", "\(r.stdout)")
        // The decision is the one the lines make: the encoder is allowed, so recording is.
        let explained = try await Pwrecord.run(["policy", "explain"], environment: home.env)
        #expect(explained.status == 0 && explained.stdout.contains("sinks = encoder, nosuchsink"), "\(explained.stdout)")
    }

    @Test("policy explain exits 4 when a user policy denies recording, naming the line")
    func explainShowsDenyingLine() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("pwrecord"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: config) }
        try "[defaults]\nrecording = deny\n".write(to: config.appendingPathComponent("pwrecord/policy.conf"), atomically: true, encoding: .utf8)
        let r = try await Pwrecord.run(["policy", "explain"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(r.status == 4)
        #expect(r.stdout.contains("pwrecord/policy.conf:2"))
    }

    @Test("a bad --at is a usage error naming the option")
    func badTimeIsUsageError() async throws {
        let r = try await Pwrecord.run(["policy", "explain", "--at", "noon"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("pwrecord: error: invalid value 'noon' for '--at'"))
    }
}

/// `policy explain --at`: the times it takes, read in the policy's time zone.
@Suite("pwrecord policy explain --at")
struct PolicyExplainTimeTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test("a time the clocks skip when daylight saving time starts is refused as such, not as a bad format")
    func timeInTheGap() {
        #expect(throws: ValueError("2026-03-29T02:30 does not exist in Europe/Berlin: the clocks skip it when daylight "
                                   + "saving time starts; give a time outside that gap")) {
            try PolicyCommands.parseTime("2026-03-29T02:30", now: Date(), timeZone: Self.berlin)
        }
        let dayOfTheGap = try! PolicyCommands.parseTime("2026-03-29T12:00", now: Date(), timeZone: Self.berlin)
        #expect(throws: ValueError.self) { try PolicyCommands.parseTime("02:30", now: dayOfTheGap, timeZone: Self.berlin) }
    }

    @Test("full dates and today's times are read in the zone; malformed ones are format errors",
          arguments: ["noon", "25:00", "12:60", "2026-02-30T12:00", "2026-03-29T1230", "2026-03-29", "+1:30"])
    func formats(bad: String) throws {
        #expect(throws: ValueError("expected HH:MM or YYYY-MM-DDTHH:MM")) {
            try PolicyCommands.parseTime(bad, now: Date(), timeZone: Self.berlin)
        }
        let date = try PolicyCommands.parseTime("2026-03-29T03:00", now: Date(), timeZone: Self.berlin)
        #expect(date == Date(timeIntervalSince1970: 1_774_746_000))  // 01:00 UTC, the first minute of summer time
        let today = try PolicyCommands.parseTime("9:05", now: date, timeZone: Self.berlin)
        #expect(today == date.addingTimeInterval(6 * 3_600 + 5 * 60))
    }
}
