import Foundation
import PortalCapture

/// A PNG decoded by the ffmpeg CLI into an RGBx `VideoFrame`, so `TestPattern`'s checks apply to screenshots.
enum DecodedPNG {
    enum Failure: Error, CustomStringConvertible {
        case notPNG(String)
        case ffmpeg(String)
        var description: String {
            switch self {
            case .notPNG(let why): "not a PNG: \(why)"
            case .ffmpeg(let why): "ffmpeg could not decode it: \(why)"
            }
        }
    }

    static func frame(atPath path: String) throws -> VideoFrame {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard data.count > 24, Array(data.prefix(8)) == signature else { throw Failure.notPNG("\(data.count) bytes") }
        func u32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = u32(16), height = u32(20)
        let raw = FileManager.default.temporaryDirectory
            .appendingPathComponent("pwrecord-png-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).rgb0").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let run = ToolRun.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", path, "-f", "rawvideo",
                                                  "-pix_fmt", "rgb0", raw])
        guard run.status == 0 else { throw Failure.ffmpeg("status \(run.status): \(run.stderr)") }
        let pixels = try Data(contentsOf: URL(fileURLWithPath: raw))
        guard pixels.count == width * height * 4 else {
            throw Failure.ffmpeg("\(pixels.count) bytes for \(width)x\(height)")
        }
        let storage = FrameStorage(capacity: pixels.count)
        pixels.withUnsafeBytes { storage.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return VideoFrame(format: VideoFormat(pixelFormat: .rgbx, width: width, height: height), stride: width * 4,
                          timestamp: 0, sequence: 0, storage: storage)
    }
}
