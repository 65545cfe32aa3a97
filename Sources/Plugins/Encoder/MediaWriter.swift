import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The container: an `AVFormatContext` writing through a custom `AVIOContext` into an `OutputFile` (so the
/// file is created 0600, a full disk is recognised as such, and the reserve is ours to finalize into).
///
/// Muxer settings that make a crash leave a playable file: Matroska clusters of at most 250 ms, MP4
/// fragments at each keyframe and every 250 ms, and the I/O buffer flushed after every packet. The MP4's
/// `moov` comes with the first fragment (`delay_moov`) rather than empty before it, so it carries edit lists:
/// AAC's priming is skipped by its edit list, as in an unfragmented MP4 (see `AudioPriming`).
/// Not thread-safe: used by the encoding thread only.
final class MediaWriter {
    let format: UnsafeMutablePointer<AVFormatContext>
    let file: OutputFile
    private let bridge: IOBridge
    private var io: UnsafeMutablePointer<AVIOContext>?
    private(set) var headerWritten = false
    private var finished = false
    private let container: EncoderSink.Options.Container

    init(container: EncoderSink.Options.Container, file: OutputFile) throws(SinkError) {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegCall.check(avformat_alloc_output_context2(&ctx, nil, container.muxerName, nil),
                             "avformat_alloc_output_context2(\(container.muxerName))")
        guard let ctx else { throw .failed(sink: "encoder", reason: "avformat_alloc_output_context2 returned nothing") }
        self.format = ctx
        self.file = file
        self.container = container
        self.bridge = IOBridge(file: file)

        let size: Int32 = 64 * 1024
        // From here every stored property is set: a throw runs deinit, which frees `format`.
        guard let buffer = av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else {
            throw .failed(sink: "encoder", reason: "av_malloc of the I/O buffer failed")
        }
        let opaque = Unmanaged.passUnretained(bridge).toOpaque()
        io = avio_alloc_context(buffer, size, 1, opaque, nil, { opaque, data, length in
            IOBridge.from(opaque).write(data, Int(length))
        }, file.isSeekable ? { opaque, offset, whence in
            IOBridge.from(opaque).seek(offset, whence)
        } : nil)
        guard let io else {
            av_free(buffer)
            throw .failed(sink: "encoder", reason: "avio_alloc_context failed")
        }
        ctx.pointee.pb = io
        ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO | AVFMT_FLAG_FLUSH_PACKETS
        // Interleave audio and video within half a second, so neither waits long for the other.
        ctx.pointee.max_interleave_delta = 500_000
    }

    deinit {
        if !finished { releaseIO() }
        avformat_free_context(format)
    }

    /// Whether codecs must put their headers in extradata (Matroska and MP4 do).
    var wantsGlobalHeader: Bool { (format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// Adds a stream for an opened encoder; returns its index. `frameRate` is the rate the stream header
    /// claims (`AVStream.avg_frame_rate`; Matroska writes it as `DefaultDuration`, the duration of every frame
    /// that does not say otherwise): only a constant-rate stream has one to claim. Without it FFmpeg leaves
    /// the header alone and readers compute the rate from the timestamps.
    func addStream(for codec: UnsafeMutablePointer<AVCodecContext>, frameRate: AVRational? = nil) throws(SinkError) -> Int32 {
        guard let stream = avformat_new_stream(format, nil) else {
            throw .failed(sink: "encoder", reason: "avformat_new_stream failed")
        }
        try FFmpegCall.check(avcodec_parameters_from_context(stream.pointee.codecpar, codec),
                             "avcodec_parameters_from_context")
        stream.pointee.time_base = codec.pointee.time_base
        if let frameRate { stream.pointee.avg_frame_rate = frameRate }
        return stream.pointee.index
    }

    /// The time base the muxer chose for stream `index` (valid after `writeHeader`).
    func timeBase(of index: Int32) -> AVRational { format.pointee.streams[Int(index)]!.pointee.time_base }

    func writeHeader() throws(SinkError) {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch container {
        case .mkv, .webm:
            av_dict_set(&options, "cluster_time_limit", "250", 0)
        case .mp4:
            av_dict_set(&options, "movflags", "frag_keyframe+delay_moov+default_base_moof", 0)
            av_dict_set(&options, "frag_duration", "250000", 0)
            av_dict_set(&options, "use_editlist", "1", 0)
        }
        let status = avformat_write_header(format, &options)
        try checkIO(status, "avformat_write_header")
        headerWritten = true
    }

    /// Writes one encoded packet (takes over its reference). What the muxer writes for it (a Matroska
    /// cluster or MP4 fragment comes out whole, when the next one starts) is the file's burst size.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(SinkError) {
        let before = file.bytesWritten
        defer { file.noteBurst(file.bytesWritten - before) }
        try checkIO(av_interleaved_write_frame(format, packet), "av_interleaved_write_frame")
    }

    /// Writes the trailer (index, sizes, durations), flushes and releases the I/O context. The file stays
    /// open for the caller to close. Safe to call once; errors name the failing call.
    func finish() throws(SinkError) {
        guard !finished else { return }
        finished = true
        var failure: SinkError?
        if headerWritten {
            do throws(SinkError) { try checkIO(av_write_trailer(format), "av_write_trailer") } catch { failure = error }
        }
        if let io { avio_flush(io) }
        if failure == nil, let e = bridge.error { failure = e }
        releaseIO()
        if let failure { throw failure }
    }

    private func releaseIO() {
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
            format.pointee.pb = nil
        }
    }

    /// A failed write reports the file's own error (e.g. `insufficientStorage`) rather than FFmpeg's code.
    private func checkIO(_ status: Int32, _ call: String) throws(SinkError) {
        if let e = bridge.error { throw e }
        try FFmpegCall.check(status, call)
    }
}

/// The `AVIOContext` callbacks' target. `error` keeps the first failure; later writes are refused.
private final class IOBridge {
    let file: OutputFile
    var error: SinkError?

    init(file: OutputFile) { self.file = file }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> IOBridge {
        Unmanaged<IOBridge>.fromOpaque(opaque!).takeUnretainedValue()
    }

    func write(_ data: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        if error != nil { return cav_error_from_errno(EIO) }
        do throws(SinkError) {
            try file.write(UnsafeRawBufferPointer(start: data, count: length))
            return Int32(length)
        } catch {
            self.error = error
            if case .insufficientStorage = error { return cav_error_from_errno(ENOSPC) }
            return cav_error_from_errno(EIO)
        }
    }

    func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        let mode = whence & ~AVSEEK_FORCE
        if mode == AVSEEK_SIZE { return file.size }
        let target: Int64
        switch mode {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = file.position + offset
        case SEEK_END: target = file.size + offset
        default: return Int64(cav_error_from_errno(EINVAL))
        }
        do throws(SinkError) {
            try file.seek(to: target)
            return target
        } catch {
            return Int64(cav_error_from_errno(EINVAL))
        }
    }
}
