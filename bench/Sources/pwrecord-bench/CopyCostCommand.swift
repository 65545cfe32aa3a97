import Foundation
import PortalCapture

/// `pwrecord-bench copycost`: what one frame copy costs on this machine, the way `VideoCaptureStream` copies a
/// frame out of the PipeWire buffer into its `FrameStorage` (one `copyMemory` of `stride * height` bytes,
/// into a 64-byte-aligned storage). Rotates over `--buffers` sources and destinations (like the producer's
/// 4 buffers and the frame pool) so caches do not flatter it.
struct CopyCostCommand {
    static let usage = "copycost [--width 1920] [--height 1080] [--iterations 300] [--buffers 4]"

    let bytes: Int
    let iterations: Int
    let buffers: Int

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["width", "height", "iterations", "buffers"])
        bytes = try a.int("width", default: 1920, in: 16...8192) * 4 * (try a.int("height", default: 1080, in: 16...8192))
        iterations = try a.int("iterations", default: 300, in: 1...100_000)
        buffers = try a.int("buffers", default: 4, in: 1...64)
    }

    func run() {
        let sources = (0..<buffers).map { _ in FrameStorage(capacity: bytes) }
        let targets = (0..<buffers).map { _ in FrameStorage(capacity: bytes) }
        for (i, s) in sources.enumerated() { memset(s.bytes, Int32(i + 1), bytes) }
        for t in targets { memset(t.bytes, 0, bytes) }
        let c0 = ProcessMeasures.cpuSeconds()
        for i in 0..<iterations {
            targets[i % buffers].bytes.copyMemory(from: sources[(i + 1) % buffers].bytes, byteCount: bytes)
        }
        let ms = (ProcessMeasures.cpuSeconds() - c0) * 1000
        Output.line(String(format: "one frame copy (%d bytes): %.3f ms cpu (%d copies, %.0f MB/s)",
                     bytes, ms / Double(iterations), iterations, Double(bytes * iterations) / (ms / 1000) / 1e6))
    }
}
