import Foundation
import Testing
import Plugins
import PortalTestSupport

@Suite("Third-party plugins", .serialized)
struct PluginLoaderTests {
    /// A trusted plugin folder: ours, mode 0755.
    private func pluginDirectory(_ tmp: TemporaryDirectory) -> String { tmp.folder("plugins") }

    private func rejection(_ scan: PluginLoader.Scan) -> (path: String, reason: String)? { scan.onlyRejection }

    static var examplePlugin: String {
        URL(fileURLWithPath: ChildRecorder.helperPath).deletingLastPathComponent()
            .appendingPathComponent("libExampleSinkPlugin.so").path
    }

    @Test("the example plugin loads from a trusted folder, receives frames and writes its checksums")
    func examplePluginWorks() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let installed = dir + "/libExampleSinkPlugin.so"
        #expect(FileManager.default.fileExists(atPath: Self.examplePlugin), "built by swift build: \(Self.examplePlugin)")
        try FileManager.default.copyItem(atPath: Self.examplePlugin, toPath: installed)
        chmod(installed, 0o755)

        var registry = SinkRegistry.standard()
        let rejected = registry.registerPlugins(from: PluginLoader(directories: [dir, tmp.file("missing")]))
        #expect(rejected.isEmpty, "\(rejected)")
        let factory = try registry.factory(for: "framestats")
        #expect(factory.origin == installed)
        #expect(factory.options.map(\.name) == ["output", "every"])
        #expect(factory.options[1].defaultValue == "1")

        let out = tmp.file("stats.txt")
        let sink = try registry.makeSink("framestats:output=\(out)")
        let video = VideoFormat(pixelFormat: .rgbx, width: 64, height: 48, frameRate: FrameRate(30, 1))
        let audio = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 1)
        let samples = Synthetic.samples(video: video, audio: audio, seconds: 0.4, start: Synthetic.start)
        let result = try Synthetic.run(sink, video: video, audio: audio, output: nil, start: Synthetic.start, samples: samples)
        #expect(result.files == [out])
        #expect(result.videoFrames == 12)
        #expect(result.audioFrames == 19_200)

        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        let frameLines = lines.filter { $0.hasPrefix("frame ") }
        #expect(frameLines.count == 12)
        let frames = samples.compactMap { s -> VideoFrame? in if case .video(let f) = s { f } else { nil } }
        for (line, frame) in zip(frameLines, frames) {
            let f = line.split(separator: " ")
            #expect(f[1] == "\(frame.sequence)" && f[2] == "\(frame.timestamp)" && f[3] == "64" && f[4] == "48" && f[5] == "RGBx")
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in frame.bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            #expect(UInt64(f[6], radix: 16) == hash, "checksum of frame \(frame.sequence)")
        }
        #expect(lines.last == "# summary frames=12 received=12 audio_frames=19200")
        var st = stat()
        #expect(stat(out, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    @Test("scanning the same plugins again loads nothing twice and keeps no more descriptors open")
    func rescanKeepsNoDescriptors() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let installed = dir + "/libExampleSinkPlugin.so"
        try FileManager.default.copyItem(atPath: Self.examplePlugin, toPath: installed)
        chmod(installed, 0o755)
        /// Descriptors of this process open on the plugin file (other tests' descriptors do not count).
        func held() -> Int {
            var count = 0, st = stat(), plugin = stat()
            guard stat(installed, &plugin) == 0,
                  let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return -1 }
            for fd in fds where stat("/proc/self/fd/" + fd, &st) == 0 && st.st_dev == plugin.st_dev && st.st_ino == plugin.st_ino {
                count += 1
            }
            return count
        }
        let first = PluginLoader(directories: [dir]).scan()
        #expect(first.factories.map(\.id) == ["framestats"] && first.rejected.isEmpty, "\(first.rejected)")
        let afterFirst = held()
        #expect(afterFirst == 1, "the loaded library's descriptor")
        for _ in 0..<3 {
            let again = PluginLoader(directories: [dir]).scan()
            #expect(again.factories.map(\.id) == ["framestats"] && again.rejected.isEmpty, "\(again.rejected)")
        }
        #expect(held() == afterFirst, "three more scans left \(held() - afterFirst) more descriptors on the plugin")
    }

    @Test("the example plugin does not write through a symlink planted at its output, and makes an existing file private")
    func examplePluginOutputIsPrivate() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        try FileManager.default.copyItem(atPath: Self.examplePlugin, toPath: dir + "/libExampleSinkPlugin.so")
        chmod(dir + "/libExampleSinkPlugin.so", 0o755)
        var registry = SinkRegistry.standard()
        #expect(registry.registerPlugins(from: PluginLoader(directories: [dir])).isEmpty)
        let video = VideoFormat(pixelFormat: .rgbx, width: 16, height: 8, frameRate: FrameRate(30, 1))
        let samples = Synthetic.samples(video: video, audio: nil, seconds: 0.1, start: Synthetic.start)

        let victim = tmp.file("victim.txt"), link = tmp.file("stats.txt")
        try "keep me\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, link) == 0)
        #expect(throws: SinkError.self) {
            _ = try Synthetic.run(try registry.makeSink("framestats:output=\(link)"), video: video, audio: nil,
                                  output: nil, start: Synthetic.start, samples: samples)
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")

        let existing = tmp.file("old.txt")
        try "an older, longer text than the statistics' first line...................................\n"
            .write(toFile: existing, atomically: false, encoding: .utf8)
        chmod(existing, 0o644)
        _ = try Synthetic.run(try registry.makeSink("framestats:output=\(existing)"), video: video, audio: nil,
                              output: nil, start: Synthetic.start, samples: samples)
        var st = stat()
        #expect(stat(existing, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: existing, encoding: .utf8).hasPrefix("# pwrecord framestats 1:"))
        #expect(try !String(contentsOfFile: existing, encoding: .utf8).contains("older"))
    }

    @Test("the example plugin's own option errors come back naming the option")
    func examplePluginOptionError() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        try FileManager.default.copyItem(atPath: Self.examplePlugin, toPath: dir + "/libExampleSinkPlugin.so")
        var registry = SinkRegistry.standard()
        #expect(registry.registerPlugins(from: PluginLoader(directories: [dir])).isEmpty)
        let error = #expect(throws: SinkError.self) { _ = try registry.makeSink("framestats:every=0") }
        #expect(error == .invalidOption(sink: "framestats", option: "every", reason: "'0' is not a whole number of at least 1"))
        let unknown = #expect(throws: SinkError.self) { _ = try registry.makeSink("framestats:colour=red") }
        #expect(unknown == .invalidOption(sink: "framestats", option: "colour", reason: "unknown option; known options: output, every"))
    }

    @Test("a world-writable plugin folder is refused with the reason and the fix, and nothing in it loads")
    func worldWritableFolder() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let marker = tmp.file("created")
        _ = try TestPlugin.build(.init(), name: "libctest.so", in: dir, marker: marker)
        chmod(dir, 0o777)
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.factories.isEmpty)
        let r = try #require(rejection(scan))
        #expect(r.path == dir)
        #expect(r.reason == "the folder is writable by everyone (mode 0777), so anyone could replace the code; run `chmod go-w \(dir)` if you trust its contents")
        #expect(SinkError.pluginRejected(path: r.path, reason: r.reason).description.hasPrefix("plugin \(dir) was not loaded: "))
    }

    @Test("group-writable files, files of other users and links into untrusted folders are refused")
    func untrustedFiles() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let marker = tmp.file("created")
        let plugin = try TestPlugin.build(.init(), name: "libctest.so", in: dir, marker: marker)

        chmod(plugin, 0o775)
        var r = try #require(rejection(PluginLoader(directories: [dir]).scan()))
        #expect(r.reason.hasPrefix("the file is writable by its group (mode 0775)"))

        chmod(plugin, 0o755)
        chown(plugin, 65534, 65534)
        r = try #require(rejection(PluginLoader(directories: [dir]).scan()))
        #expect(r.reason.hasPrefix("the file is owned by uid 65534, not by you (uid \(geteuid())) or root"))
        chown(plugin, geteuid(), getegid())

        // A link from the trusted folder to a file in a world-writable one.
        let open = tmp.folder("open", mode: 0o777)
        try FileManager.default.moveItem(atPath: plugin, toPath: open + "/libctest.so")
        symlink(open + "/libctest.so", plugin)
        r = try #require(rejection(PluginLoader(directories: [dir]).scan()))
        #expect(r.path == plugin && r.reason.hasPrefix("the folder \(open) on the way to it is writable by everyone (mode 0777)"), "\(r.reason)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("an unknown ABI version, a short table, a declining or missing entry are refused without calling create",
          arguments: [
            (TestPlugin.Variant(abiVersion: "2"), "the plugin implements plugin ABI 2, this pwrecord speaks 1"),
            (TestPlugin.Variant(structSize: "16"), "the plugin's table is 16 bytes, plugin ABI 1 needs at least 96"),
            (TestPlugin.Variant(entryBody: "(void)&table; return NULL;"), "the plugin declined this host's plugin ABI 1"),
            (TestPlugin.Variant(entryName: "other_entry"), "not a pwrecord plugin: it does not export pwrec_sink_entry"),
            (TestPlugin.Variant(id: "Bad Id"), "the sink id 'Bad Id' is not lowercase letters"),
          ])
    func refusedTables(variant: TestPlugin.Variant, reason: String) throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let marker = tmp.file("created")
        let plugin = try TestPlugin.build(variant, name: "libctest.so", in: dir, marker: marker)
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.factories.isEmpty)
        let r = try #require(rejection(scan))
        #expect(r.path == plugin)
        #expect(r.reason.hasPrefix(reason), "\(r.reason)")
        #expect(!FileManager.default.fileExists(atPath: marker), "create was never called")
    }

    @Test("a C plugin's status codes become SinkErrors, and a plugin cannot take a built-in's id")
    func cPluginErrors() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let marker = tmp.file("created")
        _ = try TestPlugin.build(.init(id: "cfail", failAt: 3), name: "libcfail.so", in: dir, marker: marker)
        let clash = try TestPlugin.build(.init(id: "encoder"), name: "libclash.so", in: dir, marker: marker)
        var registry = SinkRegistry.standard()
        let rejected = registry.registerPlugins(from: PluginLoader(directories: [dir]))
        #expect(rejected.count == 1)
        if case .pluginRejected(let path, let reason) = rejected.first {
            #expect(path == clash && reason.contains("'encoder' is already taken"))
        } else { Issue.record("expected the clash to be rejected: \(rejected)") }
        #expect(!FileManager.default.fileExists(atPath: marker))

        let bad = #expect(throws: SinkError.self) { _ = try registry.makeSink("cfail:mode=!x") }
        #expect(bad == .invalidOption(sink: "cfail", option: "mode", reason: "values may not start with '!'"))
        #expect(FileManager.default.fileExists(atPath: marker), "create ran for a valid table")

        let sink = try registry.makeSink("cfail:mode=fast")
        let video = VideoFormat(pixelFormat: .bgrx, width: 16, height: 16)
        try sink.open(SinkContext(video: video, audio: nil, output: tmp.file("out"), startTime: 0))
        for i in 0..<3 { try sink.consume(.video(Synthetic.frame(i, format: video, timestamp: UInt64(i)))) }
        #expect(throws: SinkError.insufficientStorage(path: tmp.file("out"))) {
            try sink.consume(.video(Synthetic.frame(3, format: video, timestamp: 3)))
        }
        #expect(try sink.close().videoFrames == 3)
    }

    @Test("a file that is not a shared object is refused naming its own path, not the descriptor it was loaded through")
    func notAnELFFile() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        let path = dir + "/libnotes.so"
        try "just text".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        let r = try #require(rejection(PluginLoader(directories: [dir]).scan()))
        #expect(r.path == path)
        #expect(r.reason.hasPrefix("dlopen failed: \(path): "), "\(r.reason)")
        #expect(!r.reason.contains("/proc/self/fd"), "\(r.reason)")
    }

    @Test("a running plugin's errors name its file; a permission error without an output is worded as the sink's failure",
          arguments: [("PWREC_ERR_FAILED", "disk is full"), ("PWREC_ERR_PERMISSION", "permission denied: disk is full")])
    func runningPluginErrorsNameTheFile(status: String, reason: String) throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = pluginDirectory(tmp)
        var variant = TestPlugin.Variant(id: "cerr", failAt: 1)
        variant.failStatus = status
        let plugin = try TestPlugin.build(variant, name: "libcerr.so", in: dir, marker: tmp.file("created"))
        var registry = SinkRegistry.standard()
        #expect(registry.registerPlugins(from: PluginLoader(directories: [dir])).isEmpty)
        let sink = try registry.makeSink("cerr")
        let video = VideoFormat(pixelFormat: .bgrx, width: 16, height: 16)
        try sink.open(SinkContext(video: video, audio: nil, output: nil, startTime: 0))
        try sink.consume(.video(Synthetic.frame(0, format: video, timestamp: 0)))
        let error = #expect(throws: SinkError.self) { try sink.consume(.video(Synthetic.frame(1, format: video, timestamp: 1))) }
        #expect(error == .failed(sink: "cerr", reason: "\(reason) (plugin \(plugin))"))
        #expect(error?.description == "sink 'cerr' failed: \(reason) (plugin \(plugin))")
        _ = try sink.close()
    }

    @Test("the default folders are the system, local and per-user ones")
    func defaultFolders() {
        #expect(PluginLoader.defaultDirectories(home: "/home/ann") ==
                ["/usr/lib/pwrecord/plugins", "/usr/local/lib/pwrecord/plugins", "/home/ann/.local/lib/pwrecord/plugins"])
    }
}
