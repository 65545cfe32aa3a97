import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// A plugin's code runs the moment it is loaded (its ELF constructors), so `record` loads plugins only for a
/// `--sink` that is not built in and that the policy allows, and `status` never does.
@Suite("Plugins are loaded only when a recording needs one", .serialized)
struct PluginLoadingTests {
    /// Builds a plugin (sink id `cmark`) whose constructor creates the returned marker file, in `home`'s user
    /// plugin folder, trusted.
    static func installMarkingPlugin(in home: TestHome) throws -> String {
        let dir = home.root.appendingPathComponent(".local/lib/pwrecord/plugins")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for folder in ["", ".local", ".local/lib", ".local/lib/pwrecord", ".local/lib/pwrecord/plugins"] {
            chmod(home.root.appendingPathComponent(folder).path, 0o755)
        }
        let marker = home.root.appendingPathComponent("loaded").path
        var variant = TestPlugin.Variant(id: "cmark")
        variant.constructorMarker = marker
        _ = try TestPlugin.build(variant, name: "libcmark.so", in: dir.path, marker: home.root.appendingPathComponent("created").path)
        return marker
    }

    @Test("with the policy's sinks = encoder, neither record --sink cmark nor status loads the plugin, and sinks does")
    func policyForbidsThePluginSink() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let marker = try Self.installMarkingPlugin(in: home)
        try home.writeUserPolicy("[defaults]\nsinks = encoder\n")

        let record = try await Pwrecord.run(["record", "-o", home.work.appendingPathComponent("x.mkv").path, "--duration", "1",
                                             "--sink", "cmark"], environment: home.env)
        #expect(record.status == 4, "\(record.stderr)")
        #expect(record.stderr.contains("sink 'cmark' is not allowed by the recording policy"), "\(record.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "record loaded the plugin")

        let status = try await Pwrecord.run(["status"], environment: home.env)
        #expect(status.stdout.contains("recording is"), "\(status.stdout)\(status.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "status loaded the plugin")

        // The marker works: listing the sinks loads every trusted plugin.
        let sinks = try await Pwrecord.run(["sinks"], environment: home.env)
        #expect(sinks.stdout.contains("cmark  ("), "\(sinks.stdout)")
        #expect(FileManager.default.fileExists(atPath: marker))
    }

    @Test("a recording with only built-in sinks loads no plugin", .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func builtInSinksLoadNoPlugin() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let marker = try Self.installMarkingPlugin(in: home)
        let out = home.work.appendingPathComponent("x.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "1", "--sink", "null"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "record loaded the plugin")
    }

    @Test("record with a plugin stuck in write_video says it waits, abandons it after 5 s, and saves a playable file",
          .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func stuckPluginIsAbandoned() async throws {
        let home = try TestHome()
        defer { home.remove() }
        _ = try Self.installMarkingPlugin(in: home)
        let dir = home.root.appendingPathComponent(".local/lib/pwrecord/plugins").path
        var variant = TestPlugin.Variant(id: "cstuck")
        variant.stallAt = (sequence: 5, milliseconds: 60_000)
        let plugin = try TestPlugin.build(variant, name: "libcstuck.so", in: dir, marker: home.root.appendingPathComponent("created").path)
        let out = home.work.appendingPathComponent("x.mkv")
        // Timed inside the exclusive section: the wait for another test's turn with the portal is not pwrecord's.
        let (r, took) = try await TestPortalControl.exclusively { _ in
            let started = ContinuousClock.now
            let result = try await Pwrecord.run(["record", "-o", out.path, "--duration", "2", "--cursor", "hidden", "--sink", "cstuck"],
                                                environment: home.env)
            return (result, ContinuousClock.now - started)
        }
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("waiting for sink 'cstuck' to finish..."), "\(r.stderr)")
        #expect(r.stderr.contains("plugin sink 'cstuck' (\(plugin)) did not return within 5 s; it was abandoned"), "\(r.stderr)")
        #expect(took < .seconds(12), "took \(took)")
        let frames = try #require(try MediaTool.probe(out.path).first { $0.type == "video" }?.frames)
        #expect(frames >= 45, "the file has \(frames) frames of 2 s")
    }
}
