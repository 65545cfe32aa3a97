import Foundation
import Testing
import PortalCapture
import PortalTestSupport
import Plugins

/// `pwrecord sinks`: the built-in sinks and the plugins found in the plugin folders, each with its options.
@Suite("pwrecord sinks", .serialized)
struct SinksCommandTests {
    /// The example plugin, built next to pwrecord.
    static var examplePlugin: URL { Pwrecord.binary.deletingLastPathComponent().appendingPathComponent("libExampleSinkPlugin.so") }

    /// Installs the example plugin in `home`'s user plugin folder (~/.local/lib/pwrecord/plugins).
    static func installPlugin(in home: TestHome, mode: mode_t = 0o755) throws -> URL {
        try #require(FileManager.default.fileExists(atPath: examplePlugin.path), "swift build makes \(examplePlugin.path)")
        let dir = home.root.appendingPathComponent(".local/lib/pwrecord/plugins")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // Every folder on the way must not be writable by group or others, whatever the umask.
        for folder in ["", ".local", ".local/lib", ".local/lib/pwrecord", ".local/lib/pwrecord/plugins"] {
            chmod(home.root.appendingPathComponent(folder).path, 0o755)
        }
        let installed = dir.appendingPathComponent("libExampleSinkPlugin.so")
        try FileManager.default.copyItem(at: examplePlugin, to: installed)
        chmod(installed.path, mode)
        return installed
    }

    /// The listing of one sink: its header line and its option lines.
    static func entry(_ id: String, in output: String) -> (header: String, options: [String])? {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("\(id)  (") }) else { return nil }
        return (lines[start], Array(lines[(start + 1)...].prefix { $0.hasPrefix("    ") }))
    }

    static func expectListed(_ factory: SinkFactory, origin: String, in output: String,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        guard let entry = entry(factory.id, in: output) else {
            Issue.record("\(factory.id) is not listed:\n\(output)", sourceLocation: sourceLocation)
            return
        }
        #expect(entry.header == "\(factory.id)  (\(origin))  \(factory.summary)", sourceLocation: sourceLocation)
        #expect(entry.options.count == factory.options.count, "\(entry.options)", sourceLocation: sourceLocation)
        for (line, option) in zip(entry.options, factory.options) {
            let name = "    \(option.name)" + (option.choices.map { "=" + $0.joined(separator: "|") } ?? "")
            #expect(line.hasPrefix(name + "  ") && line.contains(option.summary), "\(line)", sourceLocation: sourceLocation)
            if let d = option.defaultValue { #expect(line.hasSuffix("(default: \(d))"), "\(line)", sourceLocation: sourceLocation) }
        }
    }

    @Test("every built-in sink is listed with its summary and every option, its choices and default")
    func builtIns() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let r = try await Pwrecord.run(["sinks"], environment: home.env)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let registry = SinkRegistry.standard()
        #expect(!registry.factories.isEmpty)
        for factory in registry.factories { Self.expectListed(factory, origin: "built-in", in: r.stdout) }
        #expect(r.stdout.contains("Use: pwrecord record --sink ID[:key=value,...]"))
    }

    @Test("a plugin in ~/.local/lib/pwrecord/plugins is listed after the built-ins, with its file and options")
    func plugin() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let installed = try Self.installPlugin(in: home)
        let r = try await Pwrecord.run(["sinks"], environment: home.env)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        var registry = SinkRegistry.standard()
        #expect(registry.registerPlugins(from: PluginLoader(directories: [installed.deletingLastPathComponent().path])).isEmpty)
        let factory = try registry.factory(for: "framestats")
        Self.expectListed(factory, origin: installed.path, in: r.stdout)
        let ids = r.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.contains("  (") }.map { String($0.prefix { $0 != " " }) }
        #expect(ids == registry.ids, "\(ids)")
    }

    @Test("a plugin writable by its group is refused with a warning naming it and the fix, and not listed")
    func refusedPlugin() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let installed = try Self.installPlugin(in: home, mode: 0o775)
        let r = try await Pwrecord.run(["sinks"], environment: home.env)
        #expect(r.status == 0)
        #expect(Self.entry("framestats", in: r.stdout) == nil)
        let warnings = r.stderr.split(separator: "\n")
        #expect(warnings.count == 1 && warnings[0].hasPrefix("pwrecord: warning: ") && warnings[0].contains(installed.path)
                && warnings[0].contains("chmod go-w"), "\(r.stderr)")
    }

    @Test("record --sink with the plugin's id sends it the frames", .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func recordThroughPlugin() async throws {
        let home = try TestHome()
        defer { home.remove() }
        _ = try Self.installPlugin(in: home)
        let out = home.root.appendingPathComponent("x.mkv"), stats = home.root.appendingPathComponent("stats.txt")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "1", "--cursor", "hidden", "--sink", "framestats:output=\(stats.path)"],
                             environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("frame ") }
        let recorded = try #require(try MediaTool.probe(out.path).first { $0.type == "video" }?.frames)
        // The plugin gets every frame the pipeline delivers; the encoder may drop one under load, never add one.
        #expect(frames.count >= recorded - 1 && frames.count <= 40, "the plugin saw \(frames.count) frames, the file has \(recorded)")
        #expect(frames.allSatisfy { $0.split(separator: " ").dropFirst(3).prefix(2) == ["320", "240"] }, "\(frames.prefix(2))")
    }
}
