import CFFmpeg

/// One video encoder: converts frames with libyuv into its `AVFrame`, places them in time with a
/// `FrameClock`, and hands packets to the `MediaWriter`. Used by the encoding thread only.
///
/// The newest packet is held back until the next one comes or `flush`: a packet cannot change once written,
/// and a VFR frame's duration is known only when the next one comes (it lasts until then), the last frame's
/// only when the recording ends. Fragmented MP4 needs them: a fragment cut (every 250 ms) while a frame has
/// no duration and its successor is not in the muxer's queue gave that frame none, and at 1 fps the next
/// fragment started at the same time as the one before.
final class VideoEncoder {
    let settings: EncoderSettings.Video
    let codec: UnsafeMutablePointer<AVCodecContext>
    private var picture: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// The newest packet, not written yet (its `size` is 0 when there is none).
    private var held: UnsafeMutablePointer<AVPacket>?
    /// The latest presentation time given to the encoder (its time base).
    private var lastPTS: Int64?
    /// Once `flush` knows where the video ends: that end and the last frame's time, in the stream's time base.
    private var ending: (last: Int64, end: Int64)?
    private let converter: FrameConverter
    private var clock: FrameClock
    private var hasPicture = false
    private(set) var streamIndex: Int32 = -1
    /// Added to every packet's timestamps once they are in the stream's time base (see `delay(by:rate:writer:)`).
    private var streamOffset: Int64 = 0
    /// Frames sent to the encoder (including duplicates), duplicates among them, and CFR drops.
    private(set) var encoded = 0
    private(set) var duplicated = 0
    private(set) var dropped = 0

    init(settings: EncoderSettings.Video, start: UInt64, container: EncoderSink.Options.Container,
         globalHeader: Bool) throws(SinkError) {
        self.settings = settings
        let name = settings.codec.encoderName
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .unsupported(sink: "encoder", reason:
                "this FFmpeg has no \(name) encoder for \(settings.codec.rawValue); install the library FFmpeg was built with, or choose another codec")
        }
        guard let ctx = avcodec_alloc_context3(encoder) else {
            throw .failed(sink: "encoder", reason: "avcodec_alloc_context3(\(name)) failed")
        }
        codec = ctx
        let mode: FrameClock.Mode = settings.rate == .cfr
            ? .constant(settings.frameRate)
            : .variable(ticksPerSecond: container == .mp4 ? 90_000 : 1_000)
        clock = FrameClock(mode: mode, start: start)
        converter = FrameConverter(layout: settings.pixelFormat.layout, width: settings.width, height: settings.height)

        let tb = clock.timeBase
        ctx.pointee.width = Int32(settings.width)
        ctx.pointee.height = Int32(settings.height)
        ctx.pointee.pix_fmt = VideoEncoder.avPixelFormat(settings.pixelFormat)
        ctx.pointee.time_base = AVRational(num: tb.num, den: tb.den)
        ctx.pointee.framerate = AVRational(num: Int32(settings.frameRate.numerator), den: Int32(settings.frameRate.denominator))
        ctx.pointee.gop_size = Int32(settings.gopSize)
        ctx.pointee.thread_count = Int32(settings.threads)
        if settings.pixelFormat == .bgr0 || settings.pixelFormat == .bgra {
            ctx.pointee.colorspace = AVCOL_SPC_RGB
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        } else {
            // libyuv's conversion: BT.601 matrix, limited range; the pixels themselves are sRGB.
            ctx.pointee.colorspace = AVCOL_SPC_SMPTE170M
            ctx.pointee.color_range = AVCOL_RANGE_MPEG
        }
        ctx.pointee.color_primaries = AVCOL_PRI_BT709
        ctx.pointee.color_trc = AVCOL_TRC_IEC61966_2_1
        if globalHeader { ctx.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        try configure(ctx, name: name)

        try FFmpegCall.check(avcodec_open2(ctx, encoder, nil), "avcodec_open2(\(name), \(settings.width)x\(settings.height) \(settings.pixelFormat.rawValue))")

        picture = av_frame_alloc()
        packet = av_packet_alloc()
        held = av_packet_alloc()
        guard let picture, packet != nil, held != nil else { throw .failed(sink: "encoder", reason: "av_frame_alloc failed") }
        picture.pointee.format = ctx.pointee.pix_fmt.rawValue
        picture.pointee.width = ctx.pointee.width
        picture.pointee.height = ctx.pointee.height
        picture.pointee.color_range = ctx.pointee.color_range
        picture.pointee.colorspace = ctx.pointee.colorspace
        picture.pointee.color_primaries = ctx.pointee.color_primaries
        picture.pointee.color_trc = ctx.pointee.color_trc
        try FFmpegCall.check(av_frame_get_buffer(picture, 0), "av_frame_get_buffer")
    }

    deinit {
        av_frame_free(&picture)
        av_packet_free(&packet)
        av_packet_free(&held)
        var ctx: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&ctx)
    }

    /// Registers the stream with the writer (after `avcodec_open2`, before the header). Only CFR claims its
    /// rate in the header: VFR frames keep their capture times, and the nominal rate (`--fps`, the stream's)
    /// is not what they have (240/1 over a 30 fps source, and Matroska would give every frame 1/240 s).
    func attach(to writer: MediaWriter) throws(SinkError) {
        streamIndex = try writer.addStream(for: codec, frameRate: settings.rate == .cfr ? codec.pointee.framerate : nil)
    }

    /// Starts the video `samples` (at `rate`) late: the part of the audio's priming the container cannot put
    /// before 0 (`AudioPriming.videoOffset`). Call after the header is written (the stream's time base is the
    /// muxer's then) and before the first frame.
    func delay(by samples: Int64, rate: Int32, writer: MediaWriter) {
        streamOffset = av_rescale_q(samples, AVRational(num: 1, den: rate), writer.timeBase(of: streamIndex))
    }

    /// Encodes one captured frame (and, for CFR, the duplicates of the previous one that come before it).
    func encode(_ frame: VideoFrame, writer: MediaWriter) throws(SinkError) {
        guard let picture else { return }
        let place = clock.place(frame.timestamp)
        if hasPicture {
            for slot in place.duplicates {
                picture.pointee.pts = slot
                try send(picture, writer: writer)
                duplicated += 1
                encoded += 1
            }
        }
        guard let pts = place.pts else {
            dropped += 1
            return
        }
        try FFmpegCall.check(av_frame_make_writable(picture), "av_frame_make_writable")
        let planes = VideoEncoder.planes(of: picture, count: FrameConverter.planeSizes(converter.layout, width: 2, height: 2).count)
        guard converter.convert(frame, into: planes) else {
            throw .unsupported(sink: "encoder", reason: "libyuv could not convert a \(frame.format) frame to \(settings.pixelFormat.rawValue)")
        }
        picture.pointee.pts = pts
        try send(picture, writer: writer)
        hasPicture = true
        encoded += 1
    }

    /// One frame at the nominal rate, in nanoseconds.
    var frameDuration: UInt64 {
        UInt64(settings.frameRate.denominator) * 1_000_000_000 / UInt64(max(settings.frameRate.numerator, 1))
    }

    /// Where the video ends on CLOCK_MONOTONIC (ns): the last frame shown for one frame duration, or to the end
    /// of its CFR slot; nil before the first frame.
    var end: UInt64? { hasPicture ? clock.end(frameDuration: frameDuration).map { clock.start &+ $0 } : nil }

    /// When the last frame is shown, on CLOCK_MONOTONIC (ns); nil before the first frame.
    var lastFrameTime: UInt64? { hasPicture ? clock.lastPresented.map { clock.start &+ $0 } : nil }

    /// Shows the last frame until `time` (CLOCK_MONOTONIC ns), when the video ends before it (the screen was
    /// still while the sound went on): CFR fills the slots up to `time`, VFR presents the last frame again.
    func extend(to time: UInt64, writer: MediaWriter) throws(SinkError) {
        guard let picture, hasPicture else { return }
        for pts in clock.extend(to: time, frameDuration: frameDuration) {
            picture.pointee.pts = pts
            try send(picture, writer: writer)
            duplicated += 1
            encoded += 1
        }
    }

    /// Drains the encoder's delayed frames and writes the held packet. Given `end` (CLOCK_MONOTONIC ns), the
    /// last frame lasts until then: the packet that shows it gets that duration, whatever the rate's slot.
    /// (With B-frames, `latency=normal`, that packet may have been written before the flush; it then keeps
    /// its nominal duration.)
    func flush(endingAt end: UInt64?, writer: MediaWriter) throws(SinkError) {
        if let end, let lastPTS {
            let timeBase = writer.timeBase(of: streamIndex)
            let last = av_rescale_q(lastPTS, codec.pointee.time_base, timeBase) + streamOffset
            let elapsed = Int64(clamping: end > clock.start ? end - clock.start : 0)
            ending = (last, av_rescale_q(elapsed, AVRational(num: 1, den: 1_000_000_000), timeBase) + streamOffset)
        }
        try send(nil, writer: writer)
        try writeHeld(writer: writer)
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, writer: MediaWriter) throws(SinkError) {
        if let frame { lastPTS = max(lastPTS ?? frame.pointee.pts, frame.pointee.pts) }
        try FFmpegCall.check(avcodec_send_frame(codec, frame), "avcodec_send_frame(\(settings.codec.encoderName))")
        guard let packet, let held else { return }
        while true {
            let r = avcodec_receive_packet(codec, packet)
            if r == CAV_ERROR_EAGAIN || r == CAV_ERROR_EOF { return }
            try FFmpegCall.check(r, "avcodec_receive_packet(\(settings.codec.encoderName))")
            if packet.pointee.duration == 0 && settings.rate == .cfr { packet.pointee.duration = 1 }
            av_packet_rescale_ts(packet, codec.pointee.time_base, writer.timeBase(of: streamIndex))
            if packet.pointee.pts != CAV_NOPTS_VALUE { packet.pointee.pts += streamOffset }
            if packet.pointee.dts != CAV_NOPTS_VALUE { packet.pointee.dts += streamOffset }
            packet.pointee.stream_index = streamIndex
            if hasData(held), held.pointee.duration == 0, held.pointee.dts != CAV_NOPTS_VALUE,
               packet.pointee.dts != CAV_NOPTS_VALUE, packet.pointee.dts > held.pointee.dts {
                held.pointee.duration = packet.pointee.dts - held.pointee.dts
            }
            try writeHeld(writer: writer)
            av_packet_move_ref(held, packet)
        }
    }

    /// Writes the held packet, if any; the one showing the last frame ends where `flush` said.
    private func writeHeld(writer: MediaWriter) throws(SinkError) {
        guard let held, hasData(held) else { return }
        if let ending, held.pointee.pts == ending.last {
            held.pointee.duration = max(1, ending.end - ending.last)
        }
        try writer.write(held)
    }

    /// Whether `packet` holds one (a written or moved-from packet is blank).
    private func hasData(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        packet.pointee.data != nil || packet.pointee.size > 0
    }

    private func configure(_ ctx: UnsafeMutablePointer<AVCodecContext>, name: String) throws(SinkError) {
        let priv = ctx.pointee.priv_data
        switch settings.codec {
        case .h264:
            if let p = settings.preset { try FFmpegCall.set(priv, "preset", p, for: name) }
            if let crf = settings.crf { try FFmpegCall.set(priv, "crf", String(crf), for: name) }
            // Bound the encoder's memory and delay (what a crash can lose); see EncoderTuning.
            for (key, value) in EncoderTuning.x264Options(settings) { try FFmpegCall.set(priv, key, value, for: name) }
        case .vp9:
            ctx.pointee.bit_rate = 0
            try FFmpegCall.set(priv, "deadline", "realtime", for: name)
            try FFmpegCall.set(priv, "cpu-used", settings.preset ?? "8", for: name)
            if let crf = settings.crf { try FFmpegCall.set(priv, "crf", String(crf), for: name) }
            try FFmpegCall.set(priv, "row-mt", "1", for: name)
            try FFmpegCall.set(priv, "lag-in-frames", "0", for: name)
        case .av1:
            if let p = settings.preset { try FFmpegCall.set(priv, "preset", p, for: name) }
            if let crf = settings.crf { try FFmpegCall.set(priv, "crf", String(crf), for: name) }
        case .ffv1:
            try FFmpegCall.set(priv, "slicecrc", "1", for: name)
            ctx.pointee.level = 3
        }
    }

    static func avPixelFormat(_ f: EncoderSink.Options.PixelFormat) -> AVPixelFormat {
        switch f {
        case .yuv420p: AV_PIX_FMT_YUV420P
        case .nv12: AV_PIX_FMT_NV12
        case .yuv444p: AV_PIX_FMT_YUV444P
        case .bgr0: AV_PIX_FMT_BGR0
        case .bgra: AV_PIX_FMT_BGRA
        }
    }

    /// The first `count` planes of an `AVFrame` (its `data`/`linesize` arrays import as 8-tuples).
    static func planes(of frame: UnsafeMutablePointer<AVFrame>, count: Int) -> [FrameConverter.Plane] {
        let data = frame.pointee.data, lines = frame.pointee.linesize
        let all = [(data.0, lines.0), (data.1, lines.1), (data.2, lines.2)]
        return all.prefix(count).compactMap { d, l in d.map { FrameConverter.Plane(base: $0, stride: Int(l)) } }
    }
}
