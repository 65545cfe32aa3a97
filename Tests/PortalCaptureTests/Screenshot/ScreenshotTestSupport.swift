import Foundation
import PortalCapture
import PortalTestSupport

/// Helpers shared by the screenshot suites: feeding pages to a stitcher, comparing images with pages, and
/// running the external tools (ffmpeg, pdfinfo, pdftoppm) that check the files independently of our code.
enum ScreenshotTestSupport {
    /// Stitches the viewport of `page` at each offset, in order; the padding byte changes on every frame so
    /// that a stitcher reading it would fail.
    static func stitch(_ page: ScrollingPage, offsets: [Int], format: PixelFormat = .bgrx,
                       options: StitchOptions = StitchOptions()) throws -> (image: StitchedImage, steps: [StitchStep], statistics: StitchStatistics) {
        let stitcher = ScrollStitcher(options: options)
        var steps: [StitchStep] = []
        for (i, offset) in offsets.enumerated() {
            let frame = page.frame(offset: offset, pixelFormat: format, stride: page.width * 4 + 64,
                                   sequence: UInt64(i), padding: UInt8(truncatingIfNeeded: i &* 37 &+ 11))
            steps.append(try stitcher.consume(frame))
        }
        let statistics = stitcher.statistics
        return (try stitcher.finish(), steps, statistics)
    }

    /// Offsets from `start` to `end` (inclusive) moving by `steps`, cycled; the last one is exactly `end`.
    static func offsets(from start: Int, to end: Int, steps: [Int]) -> [Int] {
        var result = [start], position = start, i = 0
        let down = end >= start
        while position != end {
            let step = steps[i % steps.count]
            position = down ? min(end, position + step) : max(end, position - step)
            result.append(position)
            i += 1
        }
        return result
    }

    /// Nil when `image` is `rows` rows tall and row `y` equals `expected(y)` for every `y`; otherwise
    /// what differs first.
    static func difference(_ image: StitchedImage, width: Int, rows: Int,
                           expected: (Int) -> ArraySlice<UInt8>) -> String? {
        guard image.width == width, image.height == rows else {
            return "image is \(image.width)x\(image.height), expected \(width)x\(rows)"
        }
        for y in 0..<rows {
            let want = expected(y)
            let same = image.withRow(y) { row in want.withUnsafeBytes { memcmp(row.baseAddress!, $0.baseAddress!, row.count) == 0 } }
            if !same {
                let x = image.withRow(y) { row in (0..<width).first { row[$0 * 4..<$0 * 4 + 4].elementsEqual(want.dropFirst($0 * 4).prefix(4)) == false } } ?? -1
                return "row \(y) differs first at column \(x)"
            }
        }
        return nil
    }

    /// Nil when `image` equals the whole page, header once on top and footer once at the bottom.
    static func difference(_ image: StitchedImage, _ page: ScrollingPage) -> String? {
        difference(image, width: page.width, rows: page.pageHeight) { page.pageRow($0) }
    }

    /// Nil when two RGBA pixel buffers `width` pixels wide are equal; otherwise where they first differ and
    /// how many pixels differ (without printing megabytes of bytes).
    static func mismatch<A: Collection<UInt8>, B: Collection<UInt8>>(_ got: A, _ want: B, width: Int) -> String? {
        let a = Array(got), b = Array(want)
        guard a.count == b.count else { return "\(a.count) bytes, expected \(b.count)" }
        var first: Int?, count = 0
        for i in stride(from: 0, to: a.count, by: 4) where a[i..<i + 4] != b[i..<i + 4] {
            first = first ?? i / 4
            count += 1
        }
        guard let first else { return nil }
        let p = first * 4
        return "\(count) pixels differ; first (\(first % width),\(first / width)): \(Array(a[p..<p + 4])) instead of \(Array(b[p..<p + 4]))"
    }

    /// The body row ranges that are blank (one colour), longest first.
    static func blankRuns(_ page: ScrollingPage) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for y in page.headerHeight..<(page.headerHeight + page.bodyHeight) {
            let row = page.pageRow(y)
            let first = row.prefix(4)
            let blank = stride(from: row.startIndex, to: row.endIndex, by: 4).allSatisfy { row[$0..<$0 + 4].elementsEqual(first) }
            if blank { start = start ?? y } else if let s = start { runs.append(s..<y); start = nil }
        }
        if let s = start { runs.append(s..<(page.headerHeight + page.bodyHeight)) }
        return runs.sorted { $0.count > $1.count }
    }

    // MARK: external tools

    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var hasImageTools: Bool { tool("ffmpeg") != nil && tool("pdfinfo") != nil && tool("pdftoppm") != nil }

    /// Runs `tool` with `arguments`; returns its exit status, standard output and standard error.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        let o = try MediaTool.runAny(self.tool(tool) ?? tool, arguments)
        return (o.status, o.stdout, o.stderr)
    }

    /// Decodes a PNG with ffmpeg into RGBA bytes.
    static func decodePNG(_ path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                         "-of", "csv=p=0", path])
        let size = String(decoding: probe.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",").compactMap { Int($0) }
        guard size.count == 2 else { throw ToolError("ffprobe \(path): \(probe.error)") }
        let decoded = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        guard decoded.status == 0 else { throw ToolError("ffmpeg \(path): \(decoded.error)") }
        return (size[0], size[1], [UInt8](decoded.output))
    }

    /// A fresh private directory for one test's files.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pwrecord-screenshot-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
