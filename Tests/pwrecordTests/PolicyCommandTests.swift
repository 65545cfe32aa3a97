import Foundation
import Testing

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
