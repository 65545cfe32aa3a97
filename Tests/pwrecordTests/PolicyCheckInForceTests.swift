import Foundation
import Testing
import PortalCapture

/// `pwrecord policy check` without a file: the whole policy in force, the system files and the user's own.
@Suite("pwrecord policy check of the policy in force")
struct PolicyCheckInForceTests {
    static var noSystemPolicy: Bool { !FileManager.default.fileExists(atPath: PolicyLocations.defaultSystemDirectory) }

    @Test("a broken line in the user's policy file is reported as file:line, exit 1")
    func brokenUserFile() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nrecording = maybe\n")
        let r = try await Pwrecord.run(["policy", "check"], environment: home.env)
        #expect(r.status == 1)
        #expect(r.stdout.split(separator: "\n").contains { $0.hasPrefix("\(home.userPolicyFile.path):2: ") && $0.contains("recording") },
                "\(r.stdout)")
        #expect(r.stderr.hasPrefix("pwrecord: error: 1 problem found"), "\(r.stderr)")
    }

    @Test("with no policy files at all it says so and exits 0", .enabled(if: noSystemPolicy))
    func noFiles() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let r = try await Pwrecord.run(["policy", "check"], environment: home.env)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout == "the policy (no files: no restrictions): ok\n")
    }

    @Test("a valid user file is named and accepted", .enabled(if: noSystemPolicy))
    func validUserFile() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nmax-duration = 1h\n")
        let r = try await Pwrecord.run(["policy", "check"], environment: home.env)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout == "\(home.userPolicyFile.path): ok\n")
    }
}
