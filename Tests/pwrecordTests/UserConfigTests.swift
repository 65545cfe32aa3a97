import Foundation
import Testing
import PortalCapture
import PortalTestSupport
@testable import pwrecord

/// The user's config file (`$XDG_CONFIG_HOME/pwrecord/config`): its defaults apply, command-line options
/// win over it, and a wrong line is a usage error naming the file and line.
@Suite("The config file")
struct UserConfigTests {
    static let parser = ArgumentParser(root: PwrecordCommands.root)

    func plan(_ arguments: [String], _ config: UserConfig) throws -> RecordCommand.Plan {
        try RecordCommand.plan(try Self.parser.parse(arguments), config: config)
    }

    @Test("the file lives in $XDG_CONFIG_HOME/pwrecord, else ~/.config/pwrecord")
    func path() {
        #expect(UserConfig.path(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/pwrecord/config")
        #expect(UserConfig.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/pwrecord/config")
        #expect(UserConfig.path(environment: ["HOME": "/h"]) == "/h/.config/pwrecord/config")
    }

    @Test("keys, comments, blank lines and ~/ in output-dir are read")
    func parsesEveryKey() {
        let config = UserConfig.parse("""
            # my defaults
            codec = vp9

              container=webm   # after whitespace
            output-dir = ~/Videos
            """, file: "/c/config", home: "/home/me")
        #expect(config == UserConfig(codec: "vp9", container: "webm", outputDirectory: "/home/me/Videos"))
    }

    @Test("a webm file or container without a codec gets vp9 (webm takes no h264); other containers keep h264")
    func webmDefaultsToVP9() throws {
        #expect(try plan(["record", "-o", "/tmp/talk.webm"], UserConfig()).options.codec == "vp9")
        #expect(try plan(["record", "--container", "webm"], UserConfig()).options.codec == "vp9")
        #expect(try plan(["record", "-o", "/tmp/talk.mkv"], UserConfig()).options.codec == "h264")
        #expect(try plan(["record", "-o", "/tmp/talk.webm", "--codec", "av1"], UserConfig()).options.codec == "av1")
        #expect(throws: CommandLineError.self) { try plan(["record", "-o", "/tmp/talk.webm", "--codec", "h264"], UserConfig()) }
        #expect(RecordingOptions().container("webm").codec == "vp9")
    }

    @Test("its codec, container and output-dir become record's defaults")
    func defaultsApply() throws {
        let config = UserConfig(codec: "vp9", container: "webm", outputDirectory: "/videos")
        let kept = try plan(["record"], config)
        #expect(kept.options.codec == "vp9")
        #expect(kept.options.container == "webm")
        #expect(kept.output == nil)
        let named = try plan(["record", "-o", "talk.webm"], config)
        #expect(named.output?.path == "/videos/talk.webm")
        #expect(named.options.output?.path == "/videos/talk.webm")
        // Without a config, the built-in defaults and the current folder.
        let plain = try plan(["record", "-o", "talk.mkv"], UserConfig())
        #expect(plain.options.codec == "h264" && plain.options.container == "mkv")
        #expect(plain.output?.path == FileManager.default.currentDirectoryPath + "/talk.mkv")
    }

    @Test("command-line options win over the file")
    func flagsOverride() throws {
        let config = UserConfig(codec: "vp9", container: "webm", outputDirectory: "/videos")
        let p = try plan(["record", "--codec", "h264", "--container", "mkv"], config)
        #expect(p.options.codec == "h264" && p.options.container == "mkv")
        // The -o extension picks the container over the file's.
        #expect(try plan(["record", "-o", "x.mkv"], config).options.container == "mkv")
        // A path with a folder is taken as given, not put in output-dir.
        let cwd = FileManager.default.currentDirectoryPath
        #expect(try plan(["record", "-o", "./x.webm"], config).output?.path == cwd + "/x.webm")
        #expect(try plan(["record", "-o", "clips/x.webm"], config).output?.path == cwd + "/clips/x.webm")
        #expect(try plan(["record", "-o", "/tmp/x.webm"], config).output?.path == "/tmp/x.webm")
    }

    @Test("a wrong line is reported as file:line: what is wrong", arguments: [
        ("codec = mpeg2", "bad codec 'mpeg2' (expected one of h264, vp9, av1, ffv1)"),
        ("container = avi", "bad container 'avi' (expected one of mkv, mp4, webm)"),
        ("colour = red", "unknown key 'colour' (known: codec, container, output-dir)"),
        ("just words", "expected 'key = value'"),
        ("= h264", "expected 'key = value'"),
        ("output-dir = Videos", "output-dir must be an absolute folder or start with ~/ (got 'Videos')"),
    ])
    func wrongLines(line: String, reason: String) {
        let config = UserConfig.parse("# defaults\n\ncodec = h264\n\(line)\n", file: "/c/pwrecord/config")
        #expect(config.problems.map(\.description) == ["/c/pwrecord/config:4: \(reason)"])
    }

    @Test("a key set twice is a wrong line, naming the first")
    func duplicateKey() {
        let config = UserConfig.parse("codec = h264\ncodec = vp9\n", file: "/c/pwrecord/config")
        #expect(config.problems.map(\.description) == ["/c/pwrecord/config:2: 'codec' is already set on line 1"])
        #expect(config.codec == "h264")
    }

    @Test("a codec the container cannot hold is a usage error before anything happens, saying where each came from")
    func codecContainerMismatch() throws {
        let config = UserConfig.parse("codec = h264\ncontainer = webm\n", file: "/c/pwrecord/config")
        #expect(config.problems.isEmpty)
        let fromFile = #expect(throws: CommandLineError.self) { try plan(["record"], config) }
        #expect(fromFile?.description == "h264 (from /c/pwrecord/config:1) cannot go into webm (from /c/pwrecord/config:2); "
                + "use a mkv or mp4 file, or the codec vp9 or av1")
        let fromFlags = #expect(throws: CommandLineError.self) { try plan(["record", "-o", "x.mp4", "--codec", "vp9"], UserConfig()) }
        #expect(fromFlags?.description == "vp9 (from --codec) cannot go into mp4 (from the -o file's extension); "
                + "use a mkv or webm file, or the codec h264 or av1")
        #expect(try plan(["record", "--container", "mkv"], config).options.container == "mkv", "--container mends it")
    }

    @Test("every wrong line is reported, each with its own line number")
    func everyWrongLine() {
        let config = UserConfig.parse("codec = x\ncontainer = mkv\nfoo = 1\n", file: "f")
        #expect(config.problems.map(\.description) == ["f:1: bad codec 'x' (expected one of h264, vp9, av1, ffv1)",
                                                      "f:3: unknown key 'foo' (known: codec, container, output-dir)"])
    }

    @Test("record, screenshot and last save exit 2 with file:line before doing anything", arguments: [
        ["record", "--duration", "1"], ["screenshot"], ["last", "save", "x.mkv"],
    ])
    func wrongLineExitsTwo(arguments: [String]) async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeConfig("codec = h264\ncontainer = mkv\ncodec = mpeg2\n")
        let r = try await PwrecordProcess.run(arguments, environment: home.env, in: home.work)
        #expect(r.status == 2, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "pwrecord: error: \(home.configFile.path):3: bad codec 'mpeg2' (expected one of h264, vp9, av1, ffv1)")
        #expect(lines.count == 2 && lines[1].hasPrefix("pwrecord: hint: fix or remove that line"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.work.path).isEmpty)
    }

    @Test("a config file that is not UTF-8 text is a usage error naming it")
    func notText() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.write(Data([0x63, 0x6f, 0xff, 0xfe, 0x0a]), to: home.configFile)
        let r = try await PwrecordProcess.run(["record"], environment: home.env, in: home.work)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("pwrecord: error: \(home.configFile.path): is not UTF-8 text"))
    }

    @Test("commands that take no defaults from the file ignore it", arguments: [["--version"], ["record", "--help"], ["sinks"]])
    func otherCommandsIgnoreIt(arguments: [String]) async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeConfig("nonsense\n")
        let r = try await PwrecordProcess.run(arguments, environment: home.env, in: home.work)
        #expect(r.status == 0, "\(r.stderr)")
    }
}

/// The config file end to end: `pwrecord record` on the test desktop takes its defaults from it.
@Suite("The config file, recording through the real portal", .enabled(if: TestDesktop.isAvailable), .serialized)
struct UserConfigRecordingTests {
    func probe(_ path: String) throws -> (format: String, video: String?) {
        let o = try MediaTool.run("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", path])
        let video = try MediaTool.probe(path).first { $0.type == "video" }?.codec
        return (String(decoding: o.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), video)
    }

    @Test("the kept recording uses the file's codec and container, and last save puts a bare name in its output-dir")
    func defaultsApplyToARecording() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let videos = try home.folder("Videos")
        try home.writeConfig("codec = vp9\ncontainer = webm\noutput-dir = ~/Videos\n")
        let r = try await TestPortalControl.exclusively { _ in
            try await PwrecordProcess.run(["record", "--duration", "1", "--cursor", "hidden"], environment: home.env, in: home.work)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let save = try await PwrecordProcess.run(["last", "save", "clip.webm"], environment: home.env, in: home.work)
        #expect(save.status == 0, "\(save.stderr)")
        let saved = videos.appendingPathComponent("clip.webm")
        #expect(save.stdout.contains(saved.path))
        let (format, video) = try probe(saved.path)
        #expect(format.contains("webm"), "format \(format)")
        #expect(video == "vp9")
        #expect(!FileManager.default.fileExists(atPath: home.work.appendingPathComponent("clip.webm").path))
    }

    @Test("options on the command line win over the file")
    func flagsWinOverTheFile() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let videos = try home.folder("Videos")
        try home.writeConfig("codec = vp9\ncontainer = webm\noutput-dir = ~/Videos\n")
        let r = try await TestPortalControl.exclusively { _ in
            try await PwrecordProcess.run(["record", "-o", "./over.mp4", "--codec", "h264", "--duration", "1", "--cursor", "hidden"],
                                    environment: home.env, in: home.work)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let out = home.work.appendingPathComponent("over.mp4")
        let (format, video) = try probe(out.path)
        #expect(format.contains("mp4"), "format \(format)")
        #expect(video == "h264")
        #expect(try FileManager.default.contentsOfDirectory(atPath: videos.path).isEmpty)
    }
}
