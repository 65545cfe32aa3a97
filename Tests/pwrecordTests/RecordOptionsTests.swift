import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// `pwrecord record`'s capture options through the real portal: what the portal is asked for (`--source`,
/// `--cursor`), and what the file shows (`--crop`, `--mask`).
@Suite("pwrecord record's capture options", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct RecordOptionsTests {
    /// `--source` and `--cursor` words with the ScreenCast `types` and `cursor_mode` bits they ask for.
    static let selections: [(source: String, cursor: String, types: UInt32, cursorMode: UInt32)] = [
        ("monitor", "hidden", 1, 1), ("window", "embedded", 2, 2), ("monitor", "metadata", 1, 4),
    ]

    @Test("--source and --cursor become SelectSources' types and cursor_mode", arguments: selections)
    func sourceAndCursor(source: String, cursor: String, types: UInt32, cursorMode: UInt32) async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("x.mkv")
        let (r, selected) = try await TestPortalControl.exclusively { control in
            let r = try await Pwrecord.run(["record", "-o", out.path, "--duration", "1", "--source", source, "--cursor", cursor],
                                     environment: home.env)
            return (r, try await control.lastOptions("SelectSources"))
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try selected.valueIfPresent("types", as: UInt32.self) == types, "\(selected)")
        #expect(try selected.valueIfPresent("cursor_mode", as: UInt32.self) == cursorMode, "\(selected)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" })
    }

    @Test("--crop records only that rectangle and --mask blacks out its own, in source coordinates")
    func cropAndMask() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("crop.mkv")
        // The 320x240 test picture: a counter band in rows 0..<30, then red | green above blue | yellow, split
        // at x 160 and y 135. The crop keeps x 80..<240, y 60..<180 (a part of all four); the mask covers
        // x 200..<240, y 60..<100 of the green part.
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "1", "--cursor", "hidden",
                              "--crop", "80,60,160,120", "--mask", "200,60,40,40"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let video = try #require(try MediaTool.probe(out.path).first { $0.type == "video" })
        #expect(video.width == 160 && video.height == 120, "\(video)")
        // The summary gives the recorded size, not the screen's.
        #expect(r.stdout.hasPrefix("saved \(out.path) (") && r.stdout.contains(", 160x120, "), "\(r.stdout)")
        // A recording with -o went to its file only: nothing was kept.
        let info = try await Pwrecord.run(["last", "info", "--json"], environment: home.env)
        #expect(info.status == 1 && info.stderr.contains("there is no kept recording"), "\(info.stdout)\(info.stderr)")
        let decoded = try MediaTool.decodeVideo(out.path, width: 160, height: 120)
        let frame = try #require(decoded.frames.last)
        func near(_ x: Int, _ y: Int, _ want: (UInt8, UInt8, UInt8)) -> Bool {
            let c = frame.rgb(x: x, y: y)
            return abs(Int(c.r) - Int(want.0)) <= 40 && abs(Int(c.g) - Int(want.1)) <= 40 && abs(Int(c.b) - Int(want.2)) <= 40
        }
        #expect(near(140, 20, (0, 0, 0)), "masked: \(frame.rgb(x: 140, y: 20))")
        #expect(near(100, 20, TestPattern.green), "green: \(frame.rgb(x: 100, y: 20))")
        #expect(near(40, 40, TestPattern.red), "red: \(frame.rgb(x: 40, y: 40))")
        #expect(near(40, 100, TestPattern.blue), "blue: \(frame.rgb(x: 40, y: 100))")
        #expect(near(120, 100, TestPattern.yellow), "yellow: \(frame.rgb(x: 120, y: 100))")
    }

    @Test("an odd crop is written at the even size below it (4:2:0), and the summary and 'last info' say the file's size")
    func oddCropReportsEncodedSize() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "--duration", "1", "--crop", "0,0,101,77"], environment: home.env)
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(", 100x76, "), "\(r.stdout)")
        let info = try await Pwrecord.run(["last", "info"], environment: home.env)
        #expect(info.stdout.contains("video: 100x76,"), "\(info.stdout)")
        let file = try #require(info.stdout.split(separator: "\n").first?.dropFirst("file: ".count).description)
        let video = try #require(try MediaTool.probe(file).first { $0.type == "video" })
        #expect(video.width == 100 && video.height == 76, "\(video)")
    }

    @Test("a crop outside the source fails at the first frame: exit 2 naming the crop, and no file is left")
    func cropOutsideSource() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("outside.mkv")
        let r = try await TestPortalControl.exclusively { _ in
            try await Pwrecord.run(["record", "-o", out.path, "--duration", "2", "--crop", "400,400,10,10"], environment: home.env)
        }
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("crop region 400,400,10,10 does not overlap the 320x240 frame"), "\(r.stderr)")
        #expect(!r.stdout.contains("saved"), "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.root.path).filter { $0.contains("outside") }.isEmpty)
    }

    @Test("a crop the source cuts to 1x1 is refused by the encoder at the first frame: exit 1, nothing left, the kept recording stays")
    func cropTooSmallAfterClipping() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let (kept, tiny) = try await TestPortalControl.exclusively { _ in
            (try await Pwrecord.run(["record", "--duration", "1"], environment: home.env),
             try await Pwrecord.run(["record", "--duration", "5", "--crop", "319,239,10,10"], environment: home.env))
        }
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(tiny.status == 1, "\(tiny.stderr)")
        #expect(tiny.stderr.contains("a 1x1 frame is too small to encode"), "\(tiny.stderr)")
        let info = try await Pwrecord.run(["last", "info"], environment: home.env)
        let keptFile = kept.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
        #expect(info.stdout.hasPrefix("file: \(keptFile)\n"), "\(info.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.recordings().path).filter { $0 != ".lock" }.sorted()
                == [URL(fileURLWithPath: keptFile).lastPathComponent, "info.json"].sorted())
    }
}
