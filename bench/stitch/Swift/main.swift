// Benchmark: stitching 50 frames of 1920x1080 with ScrollStitcher, and saving a 1920x20000 long screenshot
// as PNG and PDF. Built by bench/stitch/run with `swiftc -O -wmo` together with the sources it measures
// (one module), so no target is added to Package.swift. Usage: StitchBench <work directory> [runs]
#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1_000_000
}

/// CPU time of the whole process (all threads), ms.
func cpuNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1_000_000
}

/// The 1-minute load average.
func load() -> String {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) == 3 ? ms(loads[0]) : "?"
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
/// Milliseconds with two decimals.
func ms(_ v: Double) -> String {
    let c = Int((v * 100).rounded())
    return "\(c / 100).\(c % 100 < 10 ? "0" : "")\(c % 100)"
}

func fail(_ message: String) -> Never {
    let line = Array("StitchBench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: StitchBench <work directory> [runs]") }
let work = arguments[1]
let runs = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 5) : 5

// MARK: stitching

let width = 1920, viewport = 1080, header = 64, footer = 48
let steps = [140, 210, 95, 260, 180, 120, 300, 75, 230, 165]
var offsets = [0]
for i in 0..<49 { offsets.append(offsets[i] + steps[i % steps.count]) }
let body = offsets.last! + viewport - header - footer
let page: ScrollingPage
do {
    page = try ScrollingPage.generated(width: width, bodyHeight: body, viewportHeight: viewport, headerHeight: header,
                                       footerHeight: footer, seed: 42)
} catch { fail("\(error)") }

// The page and the offsets, for the C reference (reference.c reads the same file).
do {
    guard let file = fopen(work + "/page.bin", "wb") else { fail("cannot write \(work)/page.bin") }
    var head: [Int32] = [0x4750_5750, Int32(width), Int32(page.pageHeight), Int32(viewport), Int32(header),
                         Int32(footer), Int32(offsets.count)] + offsets.map { Int32($0) }
    _ = head.withUnsafeMutableBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    _ = page.pageRGBA.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

let format = VideoFormat(pixelFormat: .bgrx, width: width, height: viewport)
let storages = (0..<2).map { _ in FrameStorage(capacity: width * 4 * viewport) }
var totals: [Double] = []
var perFrame: [Double] = []
var image: StitchedImage?
for _ in 0..<runs {
    let stitcher = ScrollStitcher()
    var total = 0.0
    for (i, offset) in offsets.enumerated() {
        let storage = storages[i % 2]
        page.render(offset: offset, into: storage.bytes, stride: width * 4, pixelFormat: .bgrx)  // not timed
        let frame = VideoFrame(format: format, stride: width * 4, timestamp: 0, sequence: UInt64(i), storage: storage)
        let start = now()
        let step: StitchStep
        do { step = try stitcher.consume(frame) } catch { fail("\(error)") }
        total += now() - start
        if i > 0, case .scrolled(_, false) = step {} else if i > 0 { fail("frame \(i): \(step)") }
    }
    let start = now()
    do { image = try stitcher.finish() } catch { fail("\(error)") }
    total += now() - start
    totals.append(total)
    perFrame.append(total / Double(offsets.count))
}
guard let stitched = image, stitched.height == page.pageHeight else { fail("stitched height differs from the page") }
for y in 0..<stitched.height {
    let same = stitched.withRow(y) { row in page.pageRGBA.withUnsafeBytes { memcmp(row.baseAddress!, $0.baseAddress! + y * width * 4, row.count) == 0 } }
    if !same { fail("stitched row \(y) differs from the page") }
}
print("stitch (Swift): \(offsets.count) frames \(width)x\(viewport) BGRx -> \(width)x\(stitched.height), equal to the page")
print("  total ms over \(runs) runs: \(totals.map(ms).joined(separator: " "))  (median \(ms(median(totals))), per frame \(ms(median(perFrame))))")
print("RESULT stitch_swift_ms=\(ms(median(totals))) stitch_swift_min_ms=\(ms(totals.min()!))")

// MARK: writers

/// Wall-clock and process CPU time (all threads) of `body`, ms.
func timed<T>(_ body: () throws -> T) -> (T, Double, cpu: Double) {
    let start = now(), cpuStart = cpuNow()
    do { let value = try body(); return (value, now() - start, cpuNow() - cpuStart) } catch { fail("\(error)") }
}

struct WriterTimes {
    var png: [Double] = [], pngCPU: [Double] = [], encode: [Double] = [], oneBand: [Double] = [], oneBandCPU: [Double] = []
    var pdfReuse: [Double] = [], pdf: [Double] = [], libpngFast: [Double] = [], defaults: [Double] = []
}

/// Writes `image` as PNG, PDF reusing the PNG's data, PDF on its own (`runs` times each), and for
/// comparison (at most 3 times: they take seconds) PNG through libpng with the same settings (the encoder
/// before the parallel one), PNG in one band (in memory: one processor), PNG with libpng's defaults.
func writers(_ image: StitchedImage, name: String, runs: Int) -> WriterTimes {
    var t = WriterTimes()
    var pngSize = 0, defaultSize = 0
    let loadBefore = load()
    for run in 0..<runs {
        let (png, t1, c1) = timed { try PNGWriter().write(image, to: work + "/tall.png") }
        t.png.append(t1); t.pngCPU.append(c1); pngSize = png.bytes.count
        let (_, t5, _) = timed { try PNGWriter().encode(image) }
        t.encode.append(t5)
        let (_, t2, _) = timed { try PDFWriter().write(image, to: work + "/tall-reuse.pdf", reusing: png) }
        t.pdfReuse.append(t2)
        let (_, t3, _) = timed { try PDFWriter().write(image, to: work + "/tall.pdf") }
        t.pdf.append(t3)
        if run < 3 {
            let (_, t6, _) = timed { try PNGWriter(options: PNGWriter.Options().encoder(.libpng)).write(image, to: work + "/tall-libpng.png") }
            t.libpngFast.append(t6)
            let (_, t7, c7) = timed { try PNGWriter(options: PNGWriter.Options().encoder(.parallel(bands: 1))).encode(image) }
            t.oneBand.append(t7); t.oneBandCPU.append(c7)
            let (slow, t4, _) = timed { try PNGWriter(options: .libpngDefaults).write(image, to: work + "/tall-defaults.png") }
            t.defaults.append(t4); defaultSize = slow.bytes.count
        }
    }
    var info = stat()
    stat(work + "/tall.pdf", &info)
    func line(_ times: [Double]) -> String {
        "\(ms(median(times))) (min \(ms(times.min()!)))  runs: \(times.map(ms).joined(separator: " "))"
    }
    print("writers, \(name) page \(image.width)x\(image.height): ms, median (min) of \(runs) (each file 0600, fsync + rename); load \(loadBefore) before, \(load()) after")
    print("  PNG level 1, UP, Z_RLE, \(PNGBandEncoder.processors()) processors: \(line(t.png))  (\(pngSize / 1024) KiB)")
    print("    process CPU time:       \(line(t.pngCPU))")
    print("    encoding alone (memory): \(line(t.encode))")
    print("  PDF reusing the PNG data: \(line(t.pdfReuse))")
    print("  PDF on its own (encodes): \(line(t.pdf))  (\(Int(info.st_size) / 1024) KiB)")
    print("  PNG, one band, in memory: \(line(t.oneBand))")
    print("    process CPU time:       \(line(t.oneBandCPU))")
    print("  PNG, libpng, same settings: \(line(t.libpngFast))")
    print("  PNG, libpng defaults:     \(line(t.defaults))  (\(defaultSize / 1024) KiB)")
    return t
}

let tallHeight = 20_000
let writerRuns = runs
do {
    // The benchmark page: paragraphs, rules and blank runs with about a quarter of photo-like images
    // (gradients with 4 bits of noise per channel, the hardest part to compress).
    let mixed = try ScrollingPage.generated(width: width, bodyHeight: tallHeight - header - footer, viewportHeight: viewport,
                                            headerHeight: header, footerHeight: footer, seed: 7)
    let m = writers(try StitchedImage(width: width, height: mixed.pageHeight, rgba: mixed.pageRGBA), name: "mixed", runs: writerRuns)
    print("RESULT png_ms=\(ms(median(m.png))) png_min_ms=\(ms(m.png.min()!)) png_cpu_ms=\(ms(median(m.pngCPU)))"
          + " pdf_reuse_ms=\(ms(median(m.pdfReuse))) pdf_ms=\(ms(median(m.pdf))) pdf_min_ms=\(ms(m.pdf.min()!))"
          + " png_libpng_ms=\(ms(median(m.libpngFast))) png_defaults_ms=\(ms(median(m.defaults)))")
    // A text-only page (paragraphs and blank runs), like an article or a settings page.
    var blocks: [ScrollingPage.Block] = []
    var rows = 0
    while rows < tallHeight - header - footer {
        let block: ScrollingPage.Block = blocks.count % 2 == 0 ? .text(lines: 8) : .blank(height: 30)
        blocks.append(rows + block.height > tallHeight - header - footer ? .blank(height: tallHeight - header - footer - rows) : block)
        rows += blocks.last!.height
    }
    let text = try ScrollingPage(width: width, viewportHeight: viewport, headerHeight: header, footerHeight: footer,
                                 blocks: blocks, seed: 9)
    let t = writers(try StitchedImage(width: width, height: text.pageHeight, rgba: text.pageRGBA), name: "text", runs: writerRuns)
    print("RESULT text_png_ms=\(ms(median(t.png))) text_pdf_ms=\(ms(median(t.pdf))) text_png_defaults_ms=\(ms(median(t.defaults)))")
} catch { fail("\(error)") }
