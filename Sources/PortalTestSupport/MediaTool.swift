import Foundation
import PortalCapture

/// Test support: runs the `ffprobe`/`ffmpeg` command-line tools (Debian's `ffmpeg` package) to check what sinks wrote.
public enum MediaTool {
    public struct Output {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
    }

    /// Runs `/usr/bin/<tool>` with `arguments` and waits.
    public static func run(_ tool: String, _ arguments: [String]) throws -> Output {
        try runAny("/usr/bin/" + tool, arguments)
    }

    /// Runs the executable at `path` with `arguments` and waits.
    public static func runAny(_ path: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while the process runs, so a large output cannot block it.
        let collected = CollectedData()
        let errThread = Thread { collected.set(err.fileHandleForReading.readAllRetryingInterrupts()) }
        errThread.start()
        let data = out.fileHandleForReading.readAllRetryingInterrupts()
        process.waitUntilExit()
        while !collected.isSet { usleep(1000) }
        return Output(status: process.terminationStatus, stdout: data,
                      stderr: String(decoding: collected.get(), as: UTF8.self))
    }

    /// The streams ffprobe sees, with decoded frame counts (`-count_frames`).
    public struct Stream: Sendable {
        public var type: String
        public var codec: String
        public var width: Int?
        public var height: Int?
        public var pixelFormat: String?
        public var frames: Int?
        public var sampleRate: Int?
        public var channels: Int?
        /// The header's rates (`avg_frame_rate`, `r_frame_rate`); nil where ffprobe says 0/0.
        public var averageFrameRate: Double?
        public var realFrameRate: Double?
        /// Seconds on the file's timeline: where the stream starts, and where it ends (Matroska's `DURATION`
        /// tag, the end of the track as the muxer saw it; else the start plus ffprobe's duration).
        public var startTime: Double?
        public var end: Double?
    }

    public static func probe(_ path: String) throws -> [Stream] {
        let o = try run("ffprobe", ["-v", "error", "-count_frames", "-show_streams", "-of", "json", path])
        guard o.status == 0 else { throw ToolError("ffprobe failed on \(path): \(o.stderr)") }
        let json = try JSONSerialization.jsonObject(with: o.stdout) as? [String: Any]
        let streams = json?["streams"] as? [[String: Any]] ?? []
        return streams.map { s in
            Stream(type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                   width: s["width"] as? Int, height: s["height"] as? Int, pixelFormat: s["pix_fmt"] as? String,
                   frames: (s["nb_read_frames"] as? String).flatMap(Int.init),
                   sampleRate: (s["sample_rate"] as? String).flatMap(Int.init), channels: s["channels"] as? Int,
                   averageFrameRate: rate(s["avg_frame_rate"]), realFrameRate: rate(s["r_frame_rate"]),
                   startTime: (s["start_time"] as? String).flatMap(Double.init),
                   end: ((s["tags"] as? [String: Any])?["DURATION"] as? String).flatMap(clockTime)
                       ?? (s["duration"] as? String).flatMap(Double.init).map {
                           $0 + ((s["start_time"] as? String).flatMap(Double.init) ?? 0)
                       })
        }
    }

    /// "30000/1001" as a number; nil for "0/0".
    static func rate(_ value: Any?) -> Double? {
        guard let parts = (value as? String)?.split(separator: "/"), parts.count == 2,
              let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0 else { return nil }
        return n / d
    }

    /// "00:00:05.007000000" in seconds.
    static func clockTime(_ value: String) -> Double? {
        let parts = value.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    /// Presentation times (seconds) of the video frames, in decode order of packets.
    public static func videoFrameTimes(_ path: String) throws -> [Double] {
        let o = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                    "-of", "csv=p=0", path])
        guard o.status == 0 else { throw ToolError("ffprobe failed on \(path): \(o.stderr)") }
        return String(decoding: o.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces).split(separator: ",").first ?? "")
        }
    }

    /// The duration of the container, in seconds, as ffprobe reports it (`format=duration`).
    public static func duration(_ path: String) throws -> Double {
        let o = try run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        guard o.status == 0, let d = Double(String(decoding: o.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ToolError("ffprobe could not read the duration of \(path): \(o.stderr)")
        }
        return d
    }

    /// Where the file ends on its own timeline, in seconds: its start plus its duration (`format=start_time`,
    /// `format=duration`); a file whose priming is before 0 starts before 0.
    public static func end(_ path: String) throws -> Double {
        let o = try run("ffprobe", ["-v", "error", "-show_entries", "format=start_time,duration", "-of", "csv=p=0", path])
        let values = String(decoding: o.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        // ffprobe has no start time for some video-only files (N/A): they start at 0.
        guard o.status == 0, values.count == 2, let duration = values[1] else {
            throw ToolError("ffprobe could not read where \(path) ends: \(o.stderr)")
        }
        return (values[0] ?? 0) + duration
    }

    /// Every video frame decoded to RGBA at `width` x `height`.
    public static func decodeVideo(_ path: String, width: Int, height: Int) throws -> (frames: [VideoFrame], stderr: String, status: Int32) {
        let o = try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let format = VideoFormat(pixelFormat: .rgba, width: width, height: height)
        let size = width * height * 4
        var frames: [VideoFrame] = []
        var offset = 0
        o.stdout.withUnsafeBytes { raw in
            while offset + size <= raw.count {
                let storage = FrameStorage(capacity: size)
                storage.bytes.copyMemory(from: raw.baseAddress! + offset, byteCount: size)
                frames.append(VideoFrame(format: format, stride: width * 4, timestamp: 0, sequence: UInt64(frames.count), storage: storage))
                offset += size
            }
        }
        return (frames, o.stderr, o.status)
    }

    /// The first audio stream decoded to mono f32 at 48 kHz, as it plays from time 0 of the file's timeline:
    /// the encoder's priming that an MP4 edit list puts before 0 is left out, as players leave it out.
    public static func decodeAudio(_ path: String) throws -> [Float] {
        let o = try run("ffmpeg", ["-v", "error", "-copyts", "-i", path, "-map", "0:a:0", "-af", "atrim=start=0",
                                   "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
        guard o.status == 0 else { throw ToolError("ffmpeg could not decode the audio of \(path): \(o.stderr)") }
        return o.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// When the sound starts on the file's timeline, in seconds: the first sample of the first audio stream
    /// louder than `threshold`, counted from its first decoded frame's time. Decoded as a player does: what
    /// the container says to skip (Matroska's `CodecDelay`) is skipped, priming an MP4 edit list puts before 0
    /// stays there (it is decoded, and is quiet). The default threshold is above the pre-echo a lossy codec
    /// spreads before a sound that starts at full strength (up to 0.15 measured for AAC at 128 kb/s, in the
    /// last milliseconds of the priming). Nil when nothing is that loud.
    public static func audioOnset(_ path: String, threshold: Float = 0.25) throws -> Double? {
        let o = try run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-read_intervals", "%+#8",
                                    "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        guard o.status == 0, let first = String(decoding: o.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap({ Double($0.trimmingCharacters(in: .whitespaces).split(separator: ",").first ?? "") }).first else {
            throw ToolError("ffprobe found no audio frame in \(path): \(o.stderr)")
        }
        // -copyts: the samples as they are, from the first frame on (not moved to start at 0).
        let d = try run("ffmpeg", ["-v", "error", "-copyts", "-i", path, "-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
        guard d.status == 0 else { throw ToolError("ffmpeg could not decode the audio of \(path): \(d.stderr)") }
        let samples = d.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return samples.firstIndex { abs($0) > threshold }.map { first + Double($0) / 48_000 }
    }

    /// Channel `channel` of the first audio stream, alone (no downmix: ffmpeg's `-ac 1` adds stereo channels at
    /// -3 dB each, so a sine on both comes out 1.41 times louder), as f32 at 48 kHz.
    public static func decodeAudio(_ path: String, channel: Int) throws -> [Float] {
        let o = try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-af", "pan=mono|c0=c\(channel)",
                                   "-f", "f32le", "-ar", "48000", "-"])
        guard o.status == 0 else { throw ToolError("ffmpeg could not decode audio channel \(channel) of \(path): \(o.stderr)") }
        return o.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The dominant frequency of `samples` at 48 kHz, from rising zero crossings.
    public static func frequency(_ samples: [Float]) -> Double {
        guard samples.count > 4800 else { return 0 }
        var crossings = 0
        for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 { crossings += 1 }
        return Double(crossings) / (Double(samples.count) / 48_000)
    }
}

public struct ToolError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// A one-shot, thread-safe box (for a pipe reader thread).
final class CollectedData: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Data?
    func set(_ d: Data) { lock.lock(); value = d; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value != nil }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return value ?? Data() }
}
