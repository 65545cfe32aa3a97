import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// `pwrecord status [--json]`: availability and every reason, from the policy, the portal and PipeWire.
@Suite("pwrecord status", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct StatusCommandTests {
    /// The `status --json` object.
    static func json(_ r: Pwrecord.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
    }

    static func reasonKinds(_ object: [String: Any]) -> [String] {
        (object["reasons"] as? [[String: String]] ?? []).compactMap { $0["kind"] }
    }

    @Test("with the portal and PipeWire up and no policy: available, exit 0, in text and JSON")
    func available() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let (text, json) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["status"], environment: home.env), try await Pwrecord.run(["status", "--json"], environment: home.env))
        }
        #expect(text.status == 0 && text.stdout == "recording is available\nmicrophone: allowed\nsystem audio: allowed\n", "\(text.stdout)\(text.stderr)")
        #expect(json.status == 0, "\(json.stderr)")
        let object = try Self.json(json)
        #expect(object["available"] as? Bool == true)
        #expect(object["appID"] as? String == "pwrecord")
        #expect(object["microphoneAllowed"] as? Bool == true)
        #expect(object["systemAudioAllowed"] as? Bool == true)
        #expect((object["reasons"] as? [Any])?.isEmpty == true)
        for key in ["maxDurationSeconds", "allowedSinks", "policyChangesAt"] {
            #expect(object[key] == nil, "\(key) without a policy that sets it")
        }
    }

    @Test("--json carries what the policy sets for the app: microphone, system audio, maximum duration, sinks and when the hours change")
    func policyFields() async throws {
        let home = try TestHome()
        defer { home.remove() }
        // A window from an hour ago to two hours from now, in the time zone the policy reads hours in.
        let now = Date()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .policySystem
        formatter.dateFormat = "HH:mm"
        let end = now.addingTimeInterval(2 * 3600)
        try home.writeUserPolicy("""
            [app:org.example.Limited]
            microphone = deny
            system-audio = deny
            max-duration = 10m
            sinks = encoder, raw
            hours = \(formatter.string(from: now.addingTimeInterval(-3600)))-\(formatter.string(from: end))
            """)
        let (limited, other) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["status", "--json", "--app-id", "org.example.Limited"], environment: home.env),
             try await Pwrecord.run(["status", "--json"], environment: home.env))
        }
        #expect(limited.status == 0, "\(limited.stdout)\(limited.stderr)")
        let object = try Self.json(limited)
        #expect(object["available"] as? Bool == true)
        #expect(object["appID"] as? String == "org.example.Limited")
        #expect(object["microphoneAllowed"] as? Bool == false)
        #expect(object["systemAudioAllowed"] as? Bool == false)
        #expect(object["maxDurationSeconds"] as? Double == 600)
        #expect(object["allowedSinks"] as? [String] == ["encoder", "raw"])
        let changes = try #require((object["policyChangesAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) },
                                   "\(object["policyChangesAt"] ?? "none")")
        #expect(abs(changes.timeIntervalSince(end)) < 61, "the hours end at \(end), status says \(changes)")
        // The section is the app's: the default app id is not limited.
        let plain = try Self.json(other)
        #expect(plain["microphoneAllowed"] as? Bool == true && plain["maxDurationSeconds"] == nil)
        #expect(plain["systemAudioAllowed"] as? Bool == true)
    }

    @Test("a policy whose sinks leave out the encoder: unavailable (exit 4), since record always writes through it")
    func sinksWithoutEncoder() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nsinks = raw\n")
        let r = try await TestPortalControl.exclusively { _ in try await Pwrecord.run(["status"], environment: home.env) }
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.hasPrefix("recording is unavailable\n"), "\(r.stdout)")
        #expect(r.stdout.contains("the policy allows only the sinks raw, and 'pwrecord record' writes through 'encoder'"), "\(r.stdout)")
    }

    @Test("a kept recordings' folder moved outside the policy's output-dirs: unavailable (exit 4), as record would refuse")
    func keptFolderOutsideOutputDirs() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let allowed = home.root.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try home.writeUserPolicy("[defaults]\noutput-dirs = \(allowed.path)\n")   // XDG_STATE_HOME is <root>/state
        let (outside, inside) = try await TestPortalControl.exclusively { _ in
            let outside = try await Pwrecord.run(["status"], environment: home.env)
            try home.writeUserPolicy("[defaults]\noutput-dirs = \(home.root.path)\n")
            return (outside, try await Pwrecord.run(["status"], environment: home.env))
        }
        #expect(outside.status == 4, "\(outside.stdout)\(outside.stderr)")
        #expect(outside.stdout.contains("moved there by XDG_STATE_HOME, HOME or a link of yours"), "\(outside.stdout)")
        #expect(inside.status == 0, "\(inside.stdout)\(inside.stderr)")
    }

    @Test("a policy that denies the app: exit 4, the policy reason with its file and line, in text and JSON")
    func deniedForTheApp() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[app:org.example.Denied]\nrecording = deny\n")
        let (text, json) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["status", "--app-id", "org.example.Denied"], environment: home.env),
             try await Pwrecord.run(["status", "--json", "--app-id", "org.example.Denied"], environment: home.env))
        }
        #expect(text.status == 4 && json.status == 4)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first == "recording is unavailable", "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("  policy: \(home.userPolicyFile.path):2: ") }, "\(text.stdout)")
        let object = try Self.json(json)
        #expect(object["available"] as? Bool == false)
        #expect(Self.reasonKinds(object) == ["policy"])
    }

    @Test("without a portal and with a denying policy every reason is listed, the policy first, and the exit is 4")
    func everyReason() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nrecording = deny\n")
        var env = home.env
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.root.path)/no-bus-here"
        let text = try await Pwrecord.run(["status"], environment: env)
        let json = try await Pwrecord.run(["status", "--json"], environment: env)
        #expect(text.status == 4 && json.status == 4)
        let reasons = text.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(reasons.count == 2 && reasons[0].hasPrefix("  policy: ") && reasons[1].hasPrefix("  portal: "), "\(text.stdout)")
        let object = try Self.json(json)
        #expect(Self.reasonKinds(object) == ["policy", "portal"])
        for reason in object["reasons"] as? [[String: String]] ?? [] { #expect(!(reason["message"] ?? "").isEmpty) }
    }

    @Test("without a portal and without PipeWire: unavailable with both reasons, exit 5")
    func noPortalNoPipeWire() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let empty = try home.folder("run")
        var env = home.env
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(empty.path)/bus"
        env["XDG_RUNTIME_DIR"] = empty.path
        env["PIPEWIRE_RUNTIME_DIR"] = empty.path
        let json = try await Pwrecord.run(["status", "--json"], environment: env)
        #expect(json.status == 5, "\(json.stdout)\(json.stderr)")
        let object = try Self.json(json)
        #expect(object["available"] as? Bool == false)
        #expect(Self.reasonKinds(object) == ["portal", "pipewire"], "\(json.stdout)")
        let text = try await Pwrecord.run(["status"], environment: env)
        #expect(text.status == 5)
        #expect(text.stdout.contains("  portal: ") && text.stdout.contains("  pipewire: "), "\(text.stdout)")
    }
}
