/// The encoder's options resolved against the stream: concrete codecs, sizes, rates and FFmpeg names.
struct EncoderSettings: Sendable {
    typealias Options = EncoderSink.Options

    struct Video: Sendable {
        var codec: Options.VideoCodec
        var pixelFormat: Options.PixelFormat
        var crf: Int?
        var preset: String?
        /// The encoded size (4:2:0 and NV12 crop an odd size to even).
        var width: Int
        var height: Int
        var frameRate: FrameRate
        var rate: Options.RateControl
        /// Frames between keyframes.
        var gopSize: Int
        var threads: Int
        var latency: Options.Latency = .low
    }

    struct Audio: Sendable {
        var codec: Options.AudioCodec
        var input: AudioFormat
        var bitrate: Int?
    }

    var container: Options.Container
    var output: String
    var video: Video?
    var audio: Audio?
}

extension EncoderSettings.Options.Container {
    /// FFmpeg's muxer name (`av_guess_format` short name).
    var muxerName: String {
        switch self {
        case .mkv: "matroska"
        case .mp4: "mp4"
        case .webm: "webm"
        }
    }

    /// The container an output path's extension implies.
    init?(extensionOf path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".mp4") || lower.hasSuffix(".m4v") { self = .mp4 }
        else if lower.hasSuffix(".webm") { self = .webm }
        else if lower.hasSuffix(".mkv") { self = .mkv }
        else { return nil }
    }

    public func accepts(_ codec: EncoderSink.Options.VideoCodec) -> Bool {
        switch self {
        case .mkv: true
        case .mp4: codec == .h264 || codec == .av1
        case .webm: codec == .vp9 || codec == .av1
        }
    }

    func accepts(_ codec: EncoderSink.Options.AudioCodec) -> Bool {
        switch self {
        case .mkv: true
        case .mp4: codec == .aac
        case .webm: codec == .opus
        }
    }

    var defaultAudioCodec: EncoderSink.Options.AudioCodec { self == .mp4 ? .aac : .opus }
}

extension EncoderSettings.Options.VideoCodec {
    /// The libavcodec encoder used.
    var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .vp9: "libvpx-vp9"
        case .av1: "libsvtav1"
        case .ffv1: "ffv1"
        }
    }

    var isLossless: Bool { self == .ffv1 }

    var pixelFormats: [EncoderSink.Options.PixelFormat] {
        switch self {
        case .h264: [.yuv420p, .nv12, .yuv444p]
        case .vp9: [.yuv420p, .yuv444p]
        case .av1: [.yuv420p]
        case .ffv1: [.bgr0, .bgra, .yuv420p, .yuv444p]
        }
    }

    var crfRange: ClosedRange<Int>? {
        switch self {
        case .h264: 0...51
        case .vp9, .av1: 0...63
        case .ffv1: nil
        }
    }

    var defaultCRF: Int? {
        switch self {
        case .h264: 23
        case .vp9: 32
        case .av1: 35
        case .ffv1: nil
        }
    }

    var defaultPreset: String? {
        switch self {
        case .h264: "veryfast"
        case .vp9: "8"
        case .av1: "10"
        case .ffv1: nil
        }
    }

    static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                              "slower", "veryslow", "placebo"]
}

extension EncoderSettings.Options.AudioCodec {
    var encoderName: String {
        switch self {
        case .opus: "libopus"
        case .aac: "aac"
        case .flac: "flac"
        }
    }
}

extension EncoderSettings.Options.PixelFormat {
    var layout: FrameConverter.Layout {
        switch self {
        case .yuv420p: .i420
        case .nv12: .nv12
        case .yuv444p: .i444
        case .bgr0: .bgr0
        case .bgra: .bgra
        }
    }

    /// Whether chroma is halved both ways (so the encoded size must be even).
    var isSubsampled: Bool { self == .yuv420p || self == .nv12 }
}

extension EncoderSink.Options {
    private static let sink = "encoder"

    /// Checks the combinations that do not depend on the stream; `container` is the one in force (given,
    /// or implied by the output). Each error names the option at fault and what to use instead.
    func validate(container: Container) throws(SinkError) {
        let s = Self.sink
        if !container.accepts(videoCodec) {
            let fits = Container.allCases.filter { $0.accepts(videoCodec) }.map(\.rawValue).joined(separator: " or ")
            let codecs = VideoCodec.allCases.filter { container.accepts($0) }.map(\.rawValue).joined(separator: " or ")
            throw .invalidOption(sink: s, option: "codec", reason:
                "\(videoCodec.rawValue) cannot go into \(container.rawValue); use container=\(fits), or codec=\(codecs)")
        }
        if let a = audioCodec, !container.accepts(a) {
            throw .invalidOption(sink: s, option: "audio", reason:
                "\(a.rawValue) audio cannot go into \(container.rawValue); use audio=\(container.defaultAudioCodec.rawValue), or container=mkv")
        }
        if let pf = pixelFormat, !videoCodec.pixelFormats.contains(pf) {
            throw .invalidOption(sink: s, option: "pixfmt", reason:
                "\(videoCodec.encoderName) does not take \(pf.rawValue); use one of \(videoCodec.pixelFormats.map(\.rawValue).joined(separator: ", "))"
                + (pf == .bgr0 || pf == .bgra ? " (or codec=ffv1 for lossless RGB)" : ""))
        }
        if let crf {
            guard let range = videoCodec.crfRange else {
                throw .invalidOption(sink: s, option: "crf", reason: "\(videoCodec.rawValue) is lossless and takes no crf; remove it")
            }
            guard range.contains(crf) else {
                throw .invalidOption(sink: s, option: "crf", reason:
                    "\(crf) is outside \(range.lowerBound)...\(range.upperBound) for \(videoCodec.rawValue)")
            }
        }
        if let preset {
            switch videoCodec {
            case .h264:
                guard VideoCodec.x264Presets.contains(preset) else {
                    throw .invalidOption(sink: s, option: "preset", reason:
                        "'\(preset)' is not an x264 preset; use one of \(VideoCodec.x264Presets.joined(separator: ", "))")
                }
            case .vp9:
                guard let n = Int(preset), (0...8).contains(n) else {
                    throw .invalidOption(sink: s, option: "preset", reason: "for vp9 the preset is cpu-used 0...8 (8 is fastest)")
                }
            case .av1:
                guard let n = Int(preset), (0...13).contains(n) else {
                    throw .invalidOption(sink: s, option: "preset", reason: "for av1 the preset is 0...13 (13 is fastest)")
                }
            case .ffv1:
                throw .invalidOption(sink: s, option: "preset", reason: "ffv1 takes no preset; remove it")
            }
        }
        if audioBitrate != nil, audioCodec == .flac {
            throw .invalidOption(sink: s, option: "abitrate", reason: "flac is lossless and takes no bit rate; remove it")
        }
        if let r = frameRate, !r.fitsFFmpeg {
            throw .invalidOption(sink: s, option: "fps", reason:
                "\(r) is not a frame rate FFmpeg can hold: its terms must be 1...2147483647")
        }
    }

    /// The settings for a recording opened with `context`.
    func resolve(_ context: SinkContext) throws(SinkError) -> EncoderSettings {
        let s = Self.sink
        guard let output = output ?? context.output, !output.isEmpty else {
            throw .invalidOption(sink: s, option: "output", reason: "no output file; give output=FILE or a recording output")
        }
        let container = container ?? Container(extensionOf: output) ?? .mkv
        try validate(container: container)
        guard context.video != nil || context.audio != nil else {
            throw .unsupported(sink: s, reason: "the recording has neither video nor audio")
        }
        var settings = EncoderSettings(container: container, output: output)
        if let v = context.video {
            let pf = pixelFormat ?? (videoCodec.isLossless ? (v.pixelFormat.hasAlpha ? .bgra : .bgr0) : .yuv420p)
            let width = pf.isSubsampled ? v.width & ~1 : v.width
            let height = pf.isSubsampled ? v.height & ~1 : v.height
            guard width >= 2, height >= 2 else {
                throw .unsupported(sink: s, reason: "a \(v.width)x\(v.height) frame is too small to encode")
            }
            // The producer's rate (PipeWire's terms are 32-bit unsigned): used only when FFmpeg can hold it.
            let streamRate = v.frameRate.fitsFFmpeg ? v.frameRate : nil
            let fps = frameRate ?? streamRate ?? FrameRate(30, 1)
            let gop = max(1, Int((keyframeInterval * fps.framesPerSecond).rounded()))
            settings.video = .init(codec: videoCodec, pixelFormat: pf, crf: crf ?? videoCodec.defaultCRF,
                                   preset: preset ?? videoCodec.defaultPreset, width: width, height: height,
                                   frameRate: fps, rate: rate, gopSize: gop, threads: threads, latency: latency)
        }
        if let a = context.audio {
            guard (1...8).contains(a.channels), a.sampleRate >= 8000 else {
                throw .unsupported(sink: s, reason: "audio with \(a.channels) channels at \(a.sampleRate) Hz cannot be encoded (1...8 channels, 8 kHz or more)")
            }
            let codec = audioCodec ?? container.defaultAudioCodec
            let bitrate = codec == .flac ? nil : (audioBitrate ?? (codec == .opus ? 96_000 : 128_000))
            if codec == .opus, let bitrate, bitrate > 256_000 * a.channels {
                throw .invalidOption(sink: s, option: "abitrate", reason: "Opus takes at most 256 kb/s per channel: "
                    + "\(256 * a.channels) for this \(a.channels)-channel audio, not \(bitrate / 1000)")
            }
            settings.audio = .init(codec: codec, input: a, bitrate: bitrate)
        }
        return settings
    }
}
