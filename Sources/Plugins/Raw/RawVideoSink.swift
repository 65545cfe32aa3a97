#if canImport(Glibc)
import Glibc
#endif

/// Uncompressed output with no dependencies, for piping into other tools: video as YUV4MPEG2 (`.y4m`,
/// 4:2:0 or 4:4:4, BT.601 limited range) and audio as WAV in a second file.
///
/// Files: with output `rec.y4m`, video goes to `rec.y4m` and audio to `rec.wav`; an output folder gets
/// `video.y4m` and `audio.wav`; `-` writes video to standard output (then give `audio=FILE` for audio).
/// Frames are written as they arrive (Y4M has no timestamps); a resize is scaled to the first size.
/// Writes happen on the calling (delivery) thread: conversion is a few ms per 1080p frame.
public final class RawVideoSink: CaptureSink, @unchecked Sendable {
    public let id = "raw"

    public struct Options: Sendable, Hashable {
        /// Overrides the recording's output path.
        public var output: String?
        /// Where audio goes; default: next to the video, `.wav`.
        public var audioOutput: String?
        public var chroma: Chroma = .c420
        /// The rate written in the Y4M header when the stream's is variable.
        public var fallbackRate = FrameRate(30, 1)

        public init() {}
    }

    /// The chroma subsampling of the Y4M output, as spec values (`chroma=420`).
    public enum Chroma: String, Sendable, CaseIterable {
        case c420 = "420"
        case c444 = "444"
    }

    private let options: Options
    // State below is touched only from the CaptureSink calls, which never run concurrently.
    private var video: (file: OutputFile, writer: Y4MWriter, converter: FrameConverter, buffer: [UInt8])?
    private var audio: (file: OutputFile, writer: WAVWriter)?
    private var files: [String] = []
    private var videoFrames = 0
    private var audioFrames = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The output is given, audio has a file when it will come, and both can be written, before consent.
    public func preflight(_ plan: SinkPreflight) throws(SinkError) {
        let paths = try plannedPaths(output: plan.output, video: true, audio: plan.audio)
        try OutputFile.checkDestination(paths.video, sink: id)
        if plan.audio, let audio = paths.audio { try OutputFile.checkDestination(audio, sink: id) }
    }

    /// The files for this recording; refused when there is no output, or audio will come with nowhere to go.
    private func plannedPaths(output: String?, video: Bool, audio: Bool) throws(SinkError) -> (video: String, audio: String?) {
        guard let base = options.output ?? output else {
            throw .invalidOption(sink: id, option: "output", reason: "no output path; give output=FILE or a recording output")
        }
        let paths = RawVideoSink.paths(for: base, hasVideo: video, audioOverride: options.audioOutput)
        if audio && paths.audio == nil {
            throw .invalidOption(sink: id, option: "audio", reason:
                "video goes to \(base == "-" ? "standard output" : base); give audio=FILE for the audio")
        }
        if video, audio, let audioPath = paths.audio, RawVideoSink.sameDestination(paths.video, audioPath) {
            throw .invalidOption(sink: id, option: "audio", reason:
                "\(audioPath) is where the video goes too, and the two would overwrite each other; give the audio a file of its own")
        }
        return paths
    }

    /// Whether two output names lead to one place: the same descriptor (`-` is standard output, as
    /// `/dev/stdout` is), the same file (an existing one by device and inode), or the same path spelled
    /// differently (`a.y4m`, `./a.y4m`).
    static func sameDestination(_ a: String, _ b: String) -> Bool {
        func descriptor(_ path: String) -> String? {
            path == "-" ? "/proc/self/fd/1" : OutputFile.heldDescriptorPath(path)
        }
        let heldA = descriptor(a), heldB = descriptor(b)
        if let heldA, let heldB, heldA == heldB { return true }
        var stA = stat(), stB = stat()
        if stat(heldA ?? a, &stA) == 0, stat(heldB ?? b, &stB) == 0 {
            return stA.st_dev == stB.st_dev && stA.st_ino == stB.st_ino
        }
        guard heldA == nil, heldB == nil else { return false }
        return Self.lexicallyAbsolute(a) == Self.lexicallyAbsolute(b)
    }

    /// `path` from the root without `.` and empty components (`..` kept: it may cross a link).
    private static func lexicallyAbsolute(_ path: String) -> [Substring] {
        let full = path.hasPrefix("/") ? path : OutputFile.currentDirectory() + "/" + path
        return full.split(separator: "/").filter { $0 != "." }
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        // Checked before anything is written (a Y4M header already on standard output would be half a stream).
        let paths = try plannedPaths(output: context.output, video: context.video != nil, audio: context.audio != nil)
        if let v = context.video {
            let rate = v.frameRate.numerator > 0 && v.frameRate.denominator > 0 ? v.frameRate : options.fallbackRate
            let writer = Y4MWriter(width: v.width, height: v.height, rate: rate, chroma: options.chroma)
            let file = try OutputFile(path: paths.video, sink: id)
            files.append(paths.video)
            try file.write(Array(writer.header.utf8))
            let converter = FrameConverter(layout: writer.layout, width: v.width, height: v.height)
            video = (file, writer, converter, [UInt8](repeating: 0, count: writer.frameSize))
        }
        if let a = context.audio, let path = paths.audio {
            let writer = WAVWriter(format: a)
            let file = try OutputFile(path: path, sink: id)
            files.append(path)
            try file.write(writer.header(dataBytes: nil))
            audio = (file, writer)
        }
    }

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        switch sample {
        case .video(let frame):
            guard var v = video else { return }
            let sizes = FrameConverter.planeSizes(v.writer.layout, width: v.writer.width, height: v.writer.height)
            let ok = v.buffer.withUnsafeMutableBufferPointer { buf in
                var planes: [FrameConverter.Plane] = []
                var offset = 0
                for s in sizes {
                    planes.append(.init(base: buf.baseAddress! + offset, stride: s.width))
                    offset += s.width * s.height
                }
                return v.converter.convert(frame, into: planes)
            }
            guard ok else { throw .unsupported(sink: id, reason: "libyuv could not convert a \(frame.format) frame") }
            try v.file.write(Y4MWriter.frameHeader)
            try v.file.write(v.buffer)
            video = v
            videoFrames += 1
        case .audio(let buffer):
            guard let a = audio else { return }
            guard buffer.format == a.writer.format else {
                throw .unsupported(sink: id, reason: "audio format changed from \(a.writer.format) to \(buffer.format) mid-stream")
            }
            try a.file.write(buffer.bytes)
            audioFrames += buffer.frameCount
        }
    }

    public func close() throws(SinkError) -> SinkResult {
        var firstError: SinkError?
        var bytes: Int64 = 0
        if let v = video {
            do throws(SinkError) { try v.file.close() } catch { firstError = firstError ?? error }
            bytes += v.file.bytesWritten
        }
        if let a = audio {
            do throws(SinkError) {
                if a.file.isSeekable {
                    let dataBytes = a.file.size - Int64(WAVWriter.headerSize)
                    try a.file.seek(to: 0)
                    try a.file.write(a.writer.header(dataBytes: dataBytes))
                }
                try a.file.close()
            } catch { firstError = firstError ?? error }
            bytes += a.file.bytesWritten
        }
        video = nil
        audio = nil
        if let firstError { throw firstError }
        return SinkResult(files: files, videoFrames: videoFrames, audioFrames: audioFrames, bytesWritten: bytes)
    }

    /// Video and audio paths for an output `base` (audio nil: nowhere to put it).
    static func paths(for base: String, hasVideo: Bool, audioOverride: String?) -> (video: String, audio: String?) {
        var st = stat()
        if base != "-", stat(base, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            return (base + "/video.y4m", audioOverride ?? base + "/audio.wav")
        }
        // Audio only: the output is the WAV file.
        if !hasVideo { return (base, audioOverride ?? base) }
        // Standard output or another descriptor (`/dev/stdout`, `/dev/fd/N`): there is no name to put a WAV beside.
        if base == "-" || OutputFile.heldDescriptorPath(base) != nil { return (base, audioOverride) }
        let stem = base.hasSuffix(".y4m") ? String(base.dropLast(4)) : base
        return (base, audioOverride ?? stem + ".wav")
    }
}

extension RawVideoSink {
    /// The registry entry: `raw:output=FILE,audio=FILE,chroma=420|444,fps=30`.
    public static let factory = SinkFactory(
        id: "raw", summary: "uncompressed Y4M video (+ WAV audio in a second file), for piping into other tools",
        options: [
            SinkOptionInfo("output", summary: "file, folder or - (stdout); needed with 'record --sink'", isPath: true),
            SinkOptionInfo("audio", summary: "WAV file for audio; default: the video path with .wav", isPath: true),
            SinkOptionInfo("chroma", default: "420", choices: ["420", "444"], summary: "chroma subsampling"),
            SinkOptionInfo("fps", default: "30", summary: "rate written in the header when the stream's is variable"),
        ]) { (o) throws(SinkError) in
            var opts = Options()
            opts.output = o.string("output")
            opts.audioOutput = o.string("audio")
            opts.chroma = try o.choice("chroma", as: Chroma.self) ?? .c420
            opts.fallbackRate = try o.frameRate("fps") ?? FrameRate(30, 1)
            return RawVideoSink(options: opts)
        }
}
