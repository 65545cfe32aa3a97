import CFFmpeg

/// One audio encoder: places captured chunks on the recording's timeline by their capture time
/// (`AudioTimeline`: samples from before the start dropped, gaps filled with silence, overlaps dropped, all to
/// the sample), resamples them with libswresample into the codec's format, cuts them into the codec's frame
/// size through an `AVAudioFifo`, and stamps them by sample count from the start. `flush` pads the track with
/// silence to a given end (the recording's), so audio and video end together. Used by the encoding thread only.
///
/// Priming: an encoder with a delay (`AVCodecContext.initial_padding`: AAC's 1024 samples, Opus' 312) stamps
/// that many samples before the first captured one, which is at 0 (the first frame's time). `AudioPriming`
/// says where they go in the container; `timestampOffset` carries its audio part.
final class AudioEncoder {
    let settings: EncoderSettings.Audio
    let codec: UnsafeMutablePointer<AVCodecContext>
    private var resampler: OpaquePointer?
    private var fifo: OpaquePointer?
    private var converted: UnsafeMutablePointer<AVFrame>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var timeline: AudioTimeline
    private let frameSize: Int32
    private let outRate: Int32
    private let padsLastFrame: Bool
    private(set) var streamIndex: Int32 = -1
    /// Captured sample frames written (silence and dropped overlaps not counted).
    private(set) var inputFrames: Int64 = 0
    private var nextPTS: Int64 = 0
    /// Added to every packet's timestamps (in samples, the codec's time base) before the muxer gets it.
    var timestampOffset: Int64 = 0

    init(settings: EncoderSettings.Audio, start: UInt64, globalHeader: Bool) throws(SinkError) {
        self.settings = settings
        let name = settings.codec.encoderName
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .unsupported(sink: "encoder", reason:
                "this FFmpeg has no \(name) encoder for \(settings.codec.rawValue) audio; choose another audio codec")
        }
        guard let ctx = avcodec_alloc_context3(encoder) else {
            throw .failed(sink: "encoder", reason: "avcodec_alloc_context3(\(name)) failed")
        }
        codec = ctx
        let input = settings.input
        let rate: Int32
        switch settings.codec {
        case .opus: rate = [48_000, 24_000, 16_000, 12_000, 8_000].contains(input.sampleRate) ? Int32(input.sampleRate) : 48_000
        case .aac: rate = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000].contains(input.sampleRate)
            ? Int32(input.sampleRate) : 48_000
        case .flac: rate = Int32(input.sampleRate)
        }
        outRate = rate
        ctx.pointee.sample_rate = rate
        ctx.pointee.sample_fmt = switch settings.codec {
        case .opus: AV_SAMPLE_FMT_FLT
        case .aac: AV_SAMPLE_FMT_FLTP
        case .flac: input.sampleFormat == .s16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32
        }
        if settings.codec == .flac && input.sampleFormat == .f32 { ctx.pointee.bits_per_raw_sample = 24 }
        av_channel_layout_default(&ctx.pointee.ch_layout, Int32(input.channels))
        ctx.pointee.time_base = AVRational(num: 1, den: rate)
        if let b = settings.bitrate { ctx.pointee.bit_rate = Int64(b) }
        if globalHeader { ctx.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        do throws(SinkError) {
            try FFmpegCall.check(avcodec_open2(ctx, encoder, nil), "avcodec_open2(\(name), \(rate) Hz, \(input.channels) ch)")
        } catch {
            // Thrown before every stored property is set, so deinit will not run: the context is freed here.
            var failed: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&failed)
            throw error
        }
        timeline = AudioTimeline(start: start, rate: input.sampleRate)

        let caps = encoder.pointee.capabilities
        padsLastFrame = (caps & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE | AV_CODEC_CAP_SMALL_LAST_FRAME)) == 0
        frameSize = ctx.pointee.frame_size > 0 ? ctx.pointee.frame_size : 1024

        var inLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(input.channels))
        defer { av_channel_layout_uninit(&inLayout) }
        let inFormat = input.sampleFormat == .f32 ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_S16
        try FFmpegCall.check(swr_alloc_set_opts2(&resampler, &ctx.pointee.ch_layout, ctx.pointee.sample_fmt, rate,
                                                 &inLayout, inFormat, Int32(input.sampleRate), 0, nil),
                             "swr_alloc_set_opts2")
        try FFmpegCall.check(swr_init(resampler), "swr_init")
        fifo = av_audio_fifo_alloc(ctx.pointee.sample_fmt, Int32(input.channels), frameSize * 4)
        converted = av_frame_alloc()
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard fifo != nil, converted != nil, let frame, packet != nil else {
            throw .failed(sink: "encoder", reason: "allocating audio buffers failed")
        }
        frame.pointee.nb_samples = frameSize
        frame.pointee.format = ctx.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = rate
        try FFmpegCall.check(av_channel_layout_copy(&frame.pointee.ch_layout, &ctx.pointee.ch_layout), "av_channel_layout_copy")
        try FFmpegCall.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer(audio)")
    }

    deinit {
        swr_free(&resampler)
        if let fifo { av_audio_fifo_free(fifo) }
        av_frame_free(&converted)
        av_frame_free(&frame)
        av_packet_free(&packet)
        var ctx: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&ctx)
    }

    func attach(to writer: MediaWriter) throws(SinkError) {
        streamIndex = try writer.addStream(for: codec)
    }

    /// The encoder's delay in samples at `sampleRate` (`initial_padding`).
    var priming: Int32 { max(0, codec.pointee.initial_padding) }

    /// The encoder's sample rate.
    var sampleRate: Int32 { outRate }

    /// Samples written, in the encoder's rate.
    var encodedDuration: Double { Double(nextPTS) / Double(outRate) }

    /// Where the audio placed so far ends, on CLOCK_MONOTONIC (ns).
    var end: UInt64 { timeline.start &+ timeline.elapsed }

    func encode(_ buffer: AudioBuffer, writer: MediaWriter) throws(SinkError) {
        let input = settings.input
        guard buffer.format == input else {
            throw .unsupported(sink: "encoder", reason: "audio format changed from \(input) to \(buffer.format) mid-stream")
        }
        let placement = timeline.place(timestamp: buffer.timestamp, frames: buffer.frameCount)
        try writeSilence(placement.silence, writer: writer)
        guard placement.keep > 0 else { return }
        let offset = placement.skip * input.bytesPerFrame
        try buffer.bytes.withUnsafeBufferPointer { (raw) throws(SinkError) in
            try convert(raw.baseAddress.map { $0 + offset }, frames: placement.keep)
        }
        inputFrames += Int64(placement.keep)
        try drainFIFO(final: false, writer: writer)
    }

    /// Pads the track with silence to `end` (CLOCK_MONOTONIC ns; nil: no padding), drains the resampler, sends
    /// the last partial frame (padded when the codec needs whole frames) and drains the encoder.
    func flush(endingAt end: UInt64?, writer: MediaWriter) throws(SinkError) {
        if let end, end > timeline.start {
            try writeSilence(timeline.end(at: timeline.frames(in: end - timeline.start)), writer: writer)
        }
        if timeline.position > 0 {
            try convert(nil, frames: 0)
            try drainFIFO(final: true, writer: writer)
        }
        try send(nil, writer: writer)
    }

    /// `frames` sample frames of silence, a second at a time (zero bytes are silence in F32 and S16 alike).
    private func writeSilence(_ frames: Int64, writer: MediaWriter) throws(SinkError) {
        guard frames > 0 else { return }
        let piece = Int(min(frames, Int64(settings.input.sampleRate)))
        let zeros = [UInt8](repeating: 0, count: piece * settings.input.bytesPerFrame)
        var left = frames
        while left > 0 {
            let n = Int(min(left, Int64(piece)))
            try zeros.withUnsafeBufferPointer { (raw) throws(SinkError) in try convert(raw.baseAddress, frames: n) }
            try drainFIFO(final: false, writer: writer)
            left -= Int64(n)
        }
    }

    /// Runs `frames` input frames (nil: flush) through the resampler into the FIFO.
    private func convert(_ input: UnsafePointer<UInt8>?, frames: Int) throws(SinkError) {
        guard let converted, let fifo else { return }
        let capacity = swr_get_out_samples(resampler, Int32(frames))
        guard capacity > 0 else { return }
        if converted.pointee.nb_samples < capacity {
            av_frame_unref(converted)
            converted.pointee.nb_samples = capacity
            converted.pointee.format = codec.pointee.sample_fmt.rawValue
            try FFmpegCall.check(av_channel_layout_copy(&converted.pointee.ch_layout, &codec.pointee.ch_layout), "av_channel_layout_copy")
            try FFmpegCall.check(av_frame_get_buffer(converted, 0), "av_frame_get_buffer(resampler)")
        }
        var source: UnsafePointer<UInt8>? = input
        let produced = withUnsafeMutablePointer(to: &source) { src in
            swr_convert(resampler, converted.pointee.extended_data, capacity,
                        input == nil ? nil : src, Int32(frames))
        }
        try FFmpegCall.check(produced, "swr_convert")
        guard produced > 0 else { return }
        let written = converted.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) {
            av_audio_fifo_write(fifo, $0, produced)
        }
        try FFmpegCall.check(written, "av_audio_fifo_write")
    }

    private func drainFIFO(final: Bool, writer: MediaWriter) throws(SinkError) {
        guard let fifo, let frame else { return }
        while av_audio_fifo_size(fifo) >= frameSize || (final && av_audio_fifo_size(fifo) > 0) {
            try FFmpegCall.check(av_frame_make_writable(frame), "av_frame_make_writable(audio)")
            let available = min(av_audio_fifo_size(fifo), frameSize)
            let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) {
                av_audio_fifo_read(fifo, $0, available)
            }
            try FFmpegCall.check(read, "av_audio_fifo_read")
            if read < frameSize {
                if padsLastFrame {
                    av_samples_set_silence(frame.pointee.extended_data, read, frameSize - read,
                                           codec.pointee.ch_layout.nb_channels, codec.pointee.sample_fmt)
                    frame.pointee.nb_samples = frameSize
                } else {
                    frame.pointee.nb_samples = read
                }
            } else {
                frame.pointee.nb_samples = frameSize
            }
            frame.pointee.pts = nextPTS
            nextPTS += Int64(read)
            try send(frame, writer: writer)
        }
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, writer: MediaWriter) throws(SinkError) {
        try FFmpegCall.check(avcodec_send_frame(codec, frame), "avcodec_send_frame(\(settings.codec.encoderName))")
        guard let packet else { return }
        while true {
            let r = avcodec_receive_packet(codec, packet)
            if r == CAV_ERROR_EAGAIN || r == CAV_ERROR_EOF { return }
            try FFmpegCall.check(r, "avcodec_receive_packet(\(settings.codec.encoderName))")
            if packet.pointee.pts != CAV_NOPTS_VALUE { packet.pointee.pts += timestampOffset }
            if packet.pointee.dts != CAV_NOPTS_VALUE { packet.pointee.dts += timestampOffset }
            av_packet_rescale_ts(packet, codec.pointee.time_base, writer.timeBase(of: streamIndex))
            packet.pointee.stream_index = streamIndex
            try writer.write(packet)
        }
    }
}
