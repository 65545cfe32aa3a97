import Foundation
import Testing
import PortalCapture
@testable import PortalTestSupport

private typealias Support = ScreenshotTestSupport

@Suite("PDF writer", .enabled(if: Support.hasImageTools))
struct PDFWriterTests {
    private func page(width: Int = 120, bodyHeight: Int = 900, seed: UInt64 = 3) throws -> (StitchedImage, ScrollingPage) {
        let page = try ScrollingPage.generated(width: width, bodyHeight: bodyHeight, viewportHeight: 200,
                                               headerHeight: 24, footerHeight: 16, seed: seed)
        return (try StitchedImage(width: page.width, height: page.pageHeight, rgba: page.pageRGBA), page)
    }

    /// `pdfinfo`'s "Pages:" and each page's size in points.
    private func info(_ path: String, pages: Int) throws -> (count: Int, sizes: [(Double, Double)], version: String) {
        let result = try Support.run("pdfinfo", ["-f", "1", "-l", String(pages), path])
        let text = String(decoding: result.output, as: UTF8.self)
        #expect(result.status == 0, "pdfinfo: \(result.error)")
        var count = 0, sizes: [(Double, Double)] = [], version = ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "Pages" { count = Int(parts[1]) ?? 0 }
            if parts[0] == "PDF version" { version = parts[1] }
            if parts[0].hasPrefix("Page") && parts[0].hasSuffix("size") {
                let numbers = parts[1].split(separator: " ").compactMap { Double($0) }
                if numbers.count >= 2 { sizes.append((numbers[0], numbers[1])) }
            }
        }
        return (count, sizes, version)
    }

    /// Renders page `number` to PNG with `tool` (`pdftocairo`, or `pdftoppm`) at `dpi` and decodes it.
    /// `size` renders to exactly that many pixels instead (`-scale-to-x`, `-scale-to-y`).
    private func render(_ path: String, page number: Int, dpi: Double, size: (Int, Int)? = nil,
                        tool: String = "pdftocairo", in dir: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let prefix = dir + "/\(tool)-\(number)"
        let scale = size.map { ["-scale-to-x", String($0.0), "-scale-to-y", String($0.1)] } ?? ["-r", String(dpi)]
        let result = try Support.run(tool, ["-png"] + scale + ["-f", String(number), "-l", String(number),
                                            "-singlefile", path, prefix])
        #expect(result.status == 0, "\(tool): \(result.error)")
        return try Support.decodePNG(prefix + ".png")
    }

    /// The mean absolute difference per channel between two RGBA buffers of the same size.
    private func meanDifference(_ a: [UInt8], _ b: some Collection<UInt8>) -> Double {
        let b = Array(b)
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var total = 0
        for i in a.indices where i % 4 != 3 { total += abs(Int(a[i]) - Int(b[i])) }
        return Double(total) / Double(a.count / 4 * 3)
    }

    @Test("one tall page: pdfinfo reads its size and pdftoppm renders the image pixel for pixel")
    func singlePageRendersTheImage() throws {
        let (image, page) = try page()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PDFWriter().write(image, to: dir + "/page.pdf")
        let meta = try info(dir + "/page.pdf", pages: 1)
        #expect(meta.count == 1)
        #expect(meta.sizes.count == 1 && meta.sizes[0].0 == Double(page.width) * 0.75 && meta.sizes[0].1 == Double(page.pageHeight) * 0.75)
        // Cairo draws an image placed 1:1 without resampling: the rendering is the image.
        let rendered = try render(dir + "/page.pdf", page: 1, dpi: 96, in: dir)
        #expect(rendered.width == page.width && rendered.height == page.pageHeight)
        #expect(Support.mismatch(rendered.rgba, page.pageRGBA, width: page.width) == nil)
        // Poppler's Splash renderer (pdftoppm) resamples images even at 1:1, so it is held to a tolerance.
        let splash = try render(dir + "/page.pdf", page: 1, dpi: 96, tool: "pdftoppm", in: dir)
        #expect(splash.width == page.width && splash.height == page.pageHeight)
        let splashDifference = meanDifference(splash.rgba, page.pageRGBA)
        #expect(splashDifference < 12, "Splash differs by \(splashDifference) per channel on average")
    }

    @Test("transparent pixels are blended onto white, as the page is opaque (they came out in their hidden colour: black)")
    func alphaOntoWhite() throws {
        // A window's corner, 8 rows of: transparent black, quarter-opaque black, opaque red, half-opaque blue.
        let row: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 64, 255, 0, 0, 255, 0, 0, 255, 128]
        let image = try StitchedImage(width: 4, height: 8, rgba: Array([[UInt8]](repeating: row, count: 8).joined()))
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PDFWriter().write(image, to: dir + "/alpha.pdf")
        let rendered = try render(dir + "/alpha.pdf", page: 1, dpi: 96, size: (4, 8), in: dir)
        let want: [UInt8] = [255, 255, 255, 255, 191, 191, 191, 255, 255, 0, 0, 255, 127, 127, 255, 255]
        let middle = Array(rendered.rgba[(4 * 4 * 4)..<(5 * 4 * 4)])
        #expect(zip(middle, want).allSatisfy { abs(Int($0) - Int($1)) <= 2 }, "\(middle)")
        // The same bytes as a PDF of the blended image: the page holds exactly those pixels.
        let flat = Array([[UInt8]](repeating: want, count: 8).joined())
        #expect(try PDFWriter().data(for: image) == (try PDFWriter().data(for: try StitchedImage(width: 4, height: 8, rgba: flat))))
    }

    @Test("page-width pages each show their slice of the image, embedded once")
    func pagesShowSlices() throws {
        let (image, page) = try page()
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rows = 250
        let writer = PDFWriter(options: PDFWriter.Options().layout(.pages(height: rows)))
        let bytes = try writer.data(for: image)
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/pages.pdf"))
        let count = (page.pageHeight + rows - 1) / rows
        let meta = try info(dir + "/pages.pdf", pages: count)
        #expect(meta.count == count)
        #expect(meta.sizes.last.map { $0.1 } == Double(page.pageHeight - (count - 1) * rows) * 0.75)
        #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "/Subtype /Image").count == 2)
        for number in [1, 2, count] {
            let rendered = try render(dir + "/pages.pdf", page: number, dpi: 96, in: dir)
            let top = (number - 1) * rows
            let height = min(rows, page.pageHeight - top)
            #expect(rendered.width == page.width && rendered.height == height)
            #expect(Support.mismatch(rendered.rgba, page.pageRGBA[(top * page.width * 4)..<((top + height) * page.width * 4)], width: page.width) == nil, "page \(number)")
        }
    }

    @Test("the PDF reuses the PNG's compressed rows instead of compressing again")
    func reusesPNGData() throws {
        let (image, _) = try page()
        let png = try PNGWriter().encode(image)
        let pdf = try PDFWriter().data(for: image, reusing: png)
        let idat = png.imageData()
        #expect(!idat.isEmpty)
        #expect(pdf.count < idat.count + 2048)
        let start = try #require(pdf.firstRange(of: Array(">>\nstream\n".utf8)))
        #expect(pdf[start.upperBound..<(start.upperBound + idat.count)].elementsEqual(idat), "the image stream is the IDAT data")
        // A PNG made with libpng's defaults (other filters) is reused just as well.
        let other = try PNGWriter(options: .libpngDefaults).encode(image)
        #expect(try PDFWriter().data(for: image, reusing: other).firstRange(of: other.imageData()) != nil)
    }

    @Test("a PNG compressed in many bands, odd width, makes a PDF that renders as the image", arguments: [nil, 1, 9] as [Int?])
    func bandedPNGInPDF(bands: Int?) throws {
        let (image, page) = try page(width: 61, bodyHeight: 260, seed: 8)
        let png = try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: bands))).encode(image)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PDFWriter().write(image, to: dir + "/banded.pdf", reusing: png)
        #expect(try info(dir + "/banded.pdf", pages: 1).count == 1)
        let rendered = try render(dir + "/banded.pdf", page: 1, dpi: 96, in: dir)
        #expect(rendered.width == page.width && rendered.height == page.pageHeight)
        #expect(Support.mismatch(rendered.rgba, page.pageRGBA, width: page.width) == nil)
        // Splash (pdftoppm) resamples, so it is compared with its rendering of the same PDF made from libpng's PNG.
        let splash = try render(dir + "/banded.pdf", page: 1, dpi: 96, tool: "pdftoppm", in: dir)
        let libpng = try PNGWriter(options: PNGWriter.Options().encoder(.libpng)).encode(image)
        try PDFWriter().write(image, to: dir + "/libpng.pdf", reusing: libpng)
        let reference = try render(dir + "/libpng.pdf", page: 1, dpi: 96, tool: "pdftoppm", in: dir)
        #expect(splash.width == page.width && splash.height == page.pageHeight)
        #expect(Support.mismatch(splash.rgba, reference.rgba, width: page.width) == nil)
    }

    @Test("a PDF written while its image compresses has exact cross-references and stream length, and renders as the image",
          arguments: [PDFWriter.Options.Layout.singlePage, .pages(height: 70)])
    func streamedImage(layout: PDFWriter.Options.Layout) throws {
        let (image, page) = try page(width: 93, bodyHeight: 300, seed: 12)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/streamed.pdf"
        try PDFWriter(options: PDFWriter.Options().layout(layout)).write(image, to: path)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let text = String(decoding: bytes, as: UTF8.self)
        // Every cross-reference entry points at its object (poppler would silently repair a wrong table).
        let xref = try #require(bytes.lastRange(of: Array("\nxref\n".utf8)))
        let lines = String(decoding: bytes[xref.upperBound...], as: UTF8.self).split(separator: "\n")
        let count = try #require(lines.first.flatMap { Int($0.split(separator: " ").last ?? "") })
        try #require(lines.count > count)
        for id in 1..<count {
            let offset = try #require(Int(lines[1 + id].prefix(10)).flatMap { $0 < bytes.count ? $0 : nil })
            #expect(bytes[offset...].starts(with: Array("\(id) 0 obj\n".utf8)), "object \(id) at \(offset)")
        }
        #expect(text.contains("startxref\n\(xref.lowerBound + 1)\n"))
        // The image's /Length is an indirect object holding the stream's real length: the PNG's IDAT data.
        let dictionary = try #require(text.range(of: "/Columns 93 >> /Length "))
        let lengthID = try #require(Int(text[dictionary.upperBound...].prefix { $0.isNumber }))
        let lengthObject = try #require(text.range(of: "\n\(lengthID) 0 obj\n"))
        let length = try #require(Int(text[lengthObject.upperBound...].prefix { $0.isNumber }))
        let start = try #require(bytes.firstRange(of: Array(">>\nstream\n".utf8)))
        try #require(start.upperBound + length <= bytes.count)
        #expect(bytes[(start.upperBound + length)...].starts(with: Array("\nendstream\n".utf8)))
        let png = try PNGWriter(options: PNGWriter.Options().dropAlpha(true)).encode(image)
        #expect(bytes[start.upperBound..<(start.upperBound + length)].elementsEqual(png.imageData()))
        let meta = try Support.run("pdfinfo", [path])
        #expect(meta.status == 0 && meta.error.isEmpty, "pdfinfo: \(meta.error)")
        let rendered = try render(path, page: 1, dpi: 96, in: dir)
        let rows = layout == .singlePage ? page.pageHeight : 70
        #expect(rendered.width == page.width && rendered.height == rows)
        #expect(Support.mismatch(rendered.rgba, page.pageRGBA.prefix(rows * page.width * 4), width: page.width) == nil)
    }

    @Test("a page taller than 200 inches gets a UserUnit and, rendered at that scale, is the image")
    func tallPageUsesUserUnit() throws {
        // 20,000 rows at 96 px/inch is 208 inches: 15,000 units at UserUnit 1, over the 14,400 limit.
        let width = 24, height = 20_000
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                rgba[i] = UInt8(y & 255); rgba[i + 1] = UInt8((y >> 8) * 3 & 255); rgba[i + 2] = UInt8(x * 10)
            }
        }
        let image = try StitchedImage(width: width, height: height, rgba: rgba)
        let writer = PDFWriter()
        let layout = try writer.pages(width: width, height: height)
        #expect(layout.count == 1 && layout[0].userUnit == 1.042)
        #expect(layout[0].height <= PDFWriter.maximumPageUnits && abs(layout[0].height * 1.042 - 15_000) < 0.001)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writer.write(image, to: dir + "/tall.pdf")
        let meta = try info(dir + "/tall.pdf", pages: 1)
        #expect(meta.version == "1.6")
        // pdfinfo reports the MediaBox in units (it does not apply UserUnit).
        let size = try #require(meta.sizes.first)
        #expect(abs(size.1 - layout[0].height) < 0.01 && size.1 <= PDFWriter.maximumPageUnits)
        #expect(try String(contentsOfFile: dir + "/tall.pdf", encoding: .isoLatin1).contains("/UserUnit 1.042"))
        // Rendered at 96 dpi times the UserUnit (what a reader honouring UserUnit does; given as the exact
        // pixel size, as 96 x 1.042 dpi rounds up to one pixel more), it is the image.
        let rendered = try render(dir + "/tall.pdf", page: 1, dpi: 96 * 1.042, size: (width, height), in: dir)
        #expect(rendered.width == width && rendered.height == height)
        #expect(Support.mismatch(rendered.rgba, rgba, width: width) == nil)
    }

    @Test("scale-to-fit shrinks an oversized page to 200 inches")
    func scaleToFit() throws {
        let writer = PDFWriter(options: PDFWriter.Options().oversize(.scaleToFit))
        let layout = try writer.pages(width: 1920, height: 40_000)
        #expect(layout.count == 1 && layout[0].userUnit == nil)
        #expect(abs(layout[0].height - PDFWriter.maximumPageUnits) < 0.001)
        #expect(abs(layout[0].width - 1440 * PDFWriter.maximumPageUnits / 30_000) < 0.001)
    }

    @Test("A-series pages are as tall as the width times the square root of two")
    func aSeriesPages() throws {
        let layout = try PDFWriter(options: PDFWriter.Options().layout(.pages(height: nil))).pages(width: 1000, height: 5000)
        #expect(layout.map(\.rows) == [1414, 1414, 1414, 758])
        #expect(layout.map(\.top) == [0, 1414, 2828, 4242])
    }

    @Test("a PDF is written private (0600) and atomically")
    func privateFile() throws {
        let (image, _) = try page(bodyHeight: 300)
        let dir = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PDFWriter(options: PDFWriter.Options().title("Long screenshot – ü")).write(image, to: dir + "/a.pdf")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/a.pdf")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.pdf"])
        let result = try Support.run("pdfinfo", [dir + "/a.pdf"])
        #expect(String(decoding: result.output, as: UTF8.self).contains("Long screenshot – ü"))
    }

    @Test("bad options are refused with the option's name")
    func badOptions() throws {
        let (image, _) = try page(bodyHeight: 300)
        #expect(throws: ScreenshotError.invalidOption(name: "pixelsPerInch", reason: "0.0 must be a positive number")) {
            try PDFWriter(options: PDFWriter.Options().pixelsPerInch(0)).data(for: image)
        }
        #expect(throws: ScreenshotError.invalidOption(name: "pages(height:)", reason: "0 must be at least 1")) {
            try PDFWriter(options: PDFWriter.Options().layout(.pages(height: 0))).data(for: image)
        }
    }
}
