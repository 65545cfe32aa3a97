extension EncoderSink {
    /// How the encoder sink records: a value, built with defaults and changed field by field, or from spec
    /// options (`encoder:container=mp4,codec=h264,crf=20,preset=veryfast,rate=cfr,fps=30`).
    public struct Options: Sendable, Hashable {
        public enum Container: String, Sendable, CaseIterable {
            /// Matroska: every codec below; survives a crash (clusters are complete on disk).
            case mkv
            /// MP4, written fragmented (`frag_keyframe+delay_moov+default_base_moof`) so a crash leaves it
            /// playable: h264 or av1 with aac.
            case mp4
            /// WebM: vp9 or av1 with opus.
            case webm
        }

        public enum VideoCodec: String, Sendable, CaseIterable {
            /// H.264 with libx264 (`preset`, `crf`).
            case h264
            /// VP9 with libvpx-vp9 (realtime deadline; `preset` is cpu-used 0...8).
            case vp9
            /// AV1 with libsvtav1 (`preset` 0...13).
            case av1
            /// FFV1, lossless (stores RGB unless a YUV `pixfmt` is asked for).
            case ffv1
        }

        public enum AudioCodec: String, Sendable, CaseIterable {
            case opus
            case aac
            case flac
        }

        /// The pixel format the encoder gets. Lossy codecs default to `yuv420p` (4:4:4 does not play in
        /// browsers); `ffv1` defaults to `bgr0` (RGB, lossless) or `bgra` for sources with alpha.
        public enum PixelFormat: String, Sendable, CaseIterable {
            case yuv420p, nv12, yuv444p, bgr0, bgra
        }

        public enum RateControl: String, Sendable, CaseIterable {
            /// Constant frame rate: frames are duplicated or dropped to the target rate.
            case cfr
            /// Variable: each frame keeps its capture time, relative to the recording's start.
            case vfr
        }

        /// How libx264 pipelines frames (h264 only; see `EncoderTuning`).
        public enum Latency: String, Sendable, CaseIterable {
            /// No B-frames, a one-frame lookahead, threads on slices of one frame: about 50 MB of encoder
            /// memory at 1080p instead of 165 MB, and about the same size for the same quality on screen content.
            case low
            /// The preset's B-frames and frame threads, with a lookahead of about a sixth of a second.
            case normal
        }

        public enum Overflow: String, Sendable, CaseIterable {
            /// When the encoder's queue is full, the oldest waiting frame gives way to the new one (counted).
            case drop
            /// The delivery thread waits for room (offline use, tests).
            case block
        }

        /// Overrides the recording's output path; `-` is standard output (mkv, webm, mp4 all stream).
        public var output: String?
        /// nil: from the output's extension (`.mp4`, `.webm`, `.mkv`), else mkv.
        public var container: Container?
        public var videoCodec: VideoCodec = .h264
        /// nil: opus for mkv and webm, aac for mp4.
        public var audioCodec: AudioCodec?
        /// Constant rate factor; nil: 23 for h264, 32 for vp9, 35 for av1. Lossless ffv1 takes none.
        public var crf: Int?
        /// Speed/quality preset; nil: `veryfast` for h264, cpu-used 8 for vp9, 10 for av1.
        public var preset: String?
        public var pixelFormat: PixelFormat?
        public var rate: RateControl = .cfr
        /// The CFR target (and the nominal rate for VFR); nil: the stream's rate, else 30.
        public var frameRate: FrameRate?
        /// Seconds between keyframes (also bounds what a crash can lose).
        public var keyframeInterval: Double = 1
        /// Audio bit rate in bits per second; nil: 96 kb/s opus, 128 kb/s aac (flac is lossless).
        public var audioBitrate: Int?
        /// Video frames queued for the encoding thread before `overflow` applies: at most this many, and no
        /// more than fit in 16 MiB (2 frames at 1080p, 4 at 720p; never fewer than 2).
        public var queueCapacity = 16
        public var overflow: Overflow = .drop
        /// Encoder threads; 0 lets the codec decide.
        public var threads = 0
        public var latency: Latency = .low
        /// Bytes kept allocated past the end of the file, so that a full disk still leaves room to finalize;
        /// the largest single write of the muxer so far (a cluster or fragment) is kept beside them.
        public var reserveBytes: Int64 = 1 << 20

        public init() {}
    }
}

extension EncoderSink {
    /// The registry entry for `encoder`.
    public static let factory = SinkFactory(
        id: "encoder",
        summary: "encodes to a file with FFmpeg: mkv/mp4/webm, h264/vp9/av1/ffv1, opus/aac/flac",
        options: [
            SinkOptionInfo("output", summary: "file to write (or -); needed with 'record --sink'", isPath: true),
            SinkOptionInfo("container", choices: Options.Container.allCases.map(\.rawValue),
                           summary: "default: from the output's extension, else mkv"),
            SinkOptionInfo("codec", default: "h264", choices: Options.VideoCodec.allCases.map(\.rawValue),
                           summary: "video codec"),
            SinkOptionInfo("audio", choices: Options.AudioCodec.allCases.map(\.rawValue),
                           summary: "audio codec; default: opus (mkv, webm), aac (mp4)"),
            SinkOptionInfo("crf", summary: "quality; default: h264 23, vp9 32, av1 35 (lower is better)"),
            SinkOptionInfo("preset", summary: "h264: ultrafast...veryslow (veryfast); vp9: 0...8 (8); av1: 0...13 (10)"),
            SinkOptionInfo("pixfmt", choices: Options.PixelFormat.allCases.map(\.rawValue),
                           summary: "default: yuv420p for lossy codecs, bgr0 for ffv1"),
            SinkOptionInfo("rate", default: "cfr", choices: Options.RateControl.allCases.map(\.rawValue),
                           summary: "constant (duplicate/drop frames) or variable frame rate"),
            SinkOptionInfo("fps", summary: "CFR target, e.g. 30 or 30000/1001; default: the stream's rate, else 30"),
            SinkOptionInfo("keyint", default: "1", summary: "seconds between keyframes"),
            SinkOptionInfo("abitrate", summary: "audio bit rate in kb/s; default: opus 96, aac 128"),
            SinkOptionInfo("queue", default: "16", summary: "frames queued for encoding before overflow applies"),
            SinkOptionInfo("overflow", default: "drop", choices: Options.Overflow.allCases.map(\.rawValue),
                           summary: "a full queue drops frames (counted) or blocks the delivery thread"),
            SinkOptionInfo("threads", default: "0", summary: "encoder threads, 0 = automatic"),
            SinkOptionInfo("latency", default: "low", choices: Options.Latency.allCases.map(\.rawValue),
                           summary: "h264: low (no B-frames, 1-frame lookahead: a third of the memory) or normal (the preset's)"),
        ]) { (o) throws(SinkError) in
            try EncoderSink(options: Options(o))
        }
}

extension EncoderSink.Options {
    /// Options from a spec; each bad value names its option.
    public init(_ o: SinkOptions) throws(SinkError) {
        self.init()
        output = o.string("output")
        container = try o.choice("container", as: Container.self)
        videoCodec = try o.choice("codec", as: VideoCodec.self) ?? .h264
        audioCodec = try o.choice("audio", as: AudioCodec.self)
        crf = try o.int("crf", in: 0...63)
        preset = o.string("preset")
        pixelFormat = try o.choice("pixfmt", as: PixelFormat.self)
        rate = try o.choice("rate", as: RateControl.self) ?? .cfr
        frameRate = try o.frameRate("fps")
        keyframeInterval = try o.double("keyint", in: 0.04...60) ?? 1
        audioBitrate = try o.int("abitrate", in: 6...1024).map { $0 * 1000 }
        queueCapacity = try o.int("queue", in: 1...1024) ?? 16
        overflow = try o.choice("overflow", as: Overflow.self) ?? .drop
        threads = try o.int("threads", in: 0...64) ?? 0
        latency = try o.choice("latency", as: Latency.self) ?? .low
    }
}
