import CPluginABI
#if canImport(Glibc)
import Glibc
#endif

/// A sink backed by a C-ABI plugin: translates `CaptureSink` calls into the plugin's `pwrec_sink_v1`
/// functions and its status codes into `SinkError`s, which name the plugin's file.
///
/// A plugin's code may block for as long as it likes, so the sink asks to run isolated (`isolation`): on a
/// thread of its own, fed copies of the frames, and abandoned at the end when it does not return in time.
///
/// Thread safety: the recorder calls a sink from one thread at a time (the `CaptureSink` contract), which is
/// also what the ABI promises plugins; `state` is only touched from those calls.
final class PluginSink: CaptureSink, @unchecked Sendable {
    let id: String
    let isolation: SinkIsolation?
    var pluginPath: String? { plugin.path }
    private let plugin: PluginTable
    private var instance: UnsafeMutableRawPointer?
    private var output: String?
    private var closed = false

    /// Calls the plugin's `create` with the spec's options.
    init(plugin: PluginTable, options: SinkOptions, isolation: SinkIsolation? = SinkIsolation()) throws(SinkError) {
        self.id = plugin.id
        self.plugin = plugin
        self.isolation = isolation
        let pairs = options.given.sorted { $0.key < $1.key }
        var error = pwrec_error()
        var created: UnsafeMutableRawPointer?
        let status = PluginSink.withCOptions(pairs) { opts, count in
            plugin.table.pointee.create(opts, count, &created, &error)
        }
        if status != PWREC_OK {
            throw PluginSink.sinkError(status, error, sink: plugin.id, path: nil)
        }
        guard let created else {
            throw .failed(sink: plugin.id, reason: "the plugin's create returned no instance (\(plugin.path))")
        }
        self.instance = created
    }

    deinit {
        // The contract says close is always called; if a host forgot, still let the plugin finalize and free.
        if let instance {
            if !closed {
                var result = pwrec_sink_result()
                result.struct_size = UInt32(MemoryLayout<pwrec_sink_result>.size)
                var error = pwrec_error()
                _ = plugin.table.pointee.close(instance, &result, &error)
            }
            plugin.table.pointee.destroy(instance)
        }
    }

    func open(_ context: SinkContext) throws(SinkError) {
        guard let instance else { throw .failed(sink: id, reason: "the sink was already closed") }
        output = context.output
        var video = context.video.map(PluginSink.cFormat)
        var audio = context.audio.map(PluginSink.cFormat)
        var error = pwrec_error()
        let status: Int32 = withOptionalPointer(&video) { v in
            withOptionalPointer(&audio) { a in
                PluginSink.withOptionalCString(context.output) { out in
                    var params = pwrec_open_params(
                        struct_size: UInt32(MemoryLayout<pwrec_open_params>.size),
                        video: v, audio: a, output: out, start_time_ns: context.startTime)
                    return plugin.table.pointee.open(instance, &params, &error)
                }
            }
        }
        try check(status, error)
    }

    func consume(_ sample: CaptureSample) throws(SinkError) {
        guard let instance else { throw .failed(sink: id, reason: "the sink was already closed") }
        var error = pwrec_error()
        let status: Int32
        switch sample {
        case .video(let frame):
            var f = pwrec_video_frame(
                struct_size: UInt32(MemoryLayout<pwrec_video_frame>.size),
                format: PluginSink.cFormat(frame.format), stride: UInt32(frame.stride),
                timestamp_ns: frame.timestamp, sequence: frame.sequence,
                data: UnsafePointer(frame.storage.bytes.assumingMemoryBound(to: UInt8.self)),
                size: UInt64(frame.stride * frame.format.height))
            status = withExtendedLifetime(frame.storage) { plugin.table.pointee.write_video(instance, &f, &error) }
        case .audio(let buffer):
            guard let write = plugin.table.pointee.write_audio else { return }
            status = buffer.bytes.withUnsafeBufferPointer { bytes in
                var c = pwrec_audio_chunk(
                    struct_size: UInt32(MemoryLayout<pwrec_audio_chunk>.size),
                    format: PluginSink.cFormat(buffer.format), timestamp_ns: buffer.timestamp,
                    sequence: buffer.sequence, data: bytes.baseAddress, size: UInt64(bytes.count),
                    frame_count: UInt64(buffer.frameCount))
                return write(instance, &c, &error)
            }
        }
        try check(status, error)
    }

    func formatChanged(_ format: VideoFormat) throws(SinkError) {
        guard let instance, let changed = plugin.table.pointee.format_changed else { return }
        var error = pwrec_error()
        var f = PluginSink.cFormat(format)
        try check(changed(instance, &f, &error), error)
    }

    func close() throws(SinkError) -> SinkResult {
        guard let instance, !closed else { throw .failed(sink: id, reason: "close was called twice") }
        closed = true
        var result = pwrec_sink_result()
        result.struct_size = UInt32(MemoryLayout<pwrec_sink_result>.size)
        var error = pwrec_error()
        let status = plugin.table.pointee.close(instance, &result, &error)
        var files: [String] = []
        if let list = result.files {
            for i in 0..<Int(min(result.file_count, 1024)) { if let f = list[i] { files.append(String(cString: f)) } }
        }
        let summary = SinkResult(files: files, videoFrames: Int(clamping: result.video_frames),
                                 audioFrames: Int(clamping: result.audio_frames),
                                 bytesWritten: Int64(clamping: result.bytes_written))
        plugin.table.pointee.destroy(instance)
        self.instance = nil
        try check(status, error)
        return summary
    }

    // MARK: - translation

    /// A failing call during the recording: its error names the plugin's file.
    private func check(_ status: Int32, _ error: pwrec_error) throws(SinkError) {
        if status != PWREC_OK { throw PluginSink.sinkError(status, error, sink: id, path: output, plugin: plugin.path) }
    }

    /// `plugin`, when given, is named after the plugin's message (errors from a running sink; a `create`'s
    /// option errors are about the spec the user typed and say so already).
    static func sinkError(_ status: Int32, _ error: pwrec_error, sink: String, path: String?, plugin: String? = nil) -> SinkError {
        let message = cString(error.message)
        let said = message.isEmpty ? "the plugin reported status \(status)" : message
        let text = said + (plugin.map { " (plugin \($0))" } ?? "")
        switch status {
        case PWREC_ERR_INVALID_OPTION: return .invalidOption(sink: sink, option: cString(error.option), reason: text)
        case PWREC_ERR_UNSUPPORTED: return .unsupported(sink: sink, reason: text)
        // The error names a place; without an output the plugin's own words are the best place there is.
        case PWREC_ERR_NO_SPACE: return .insufficientStorage(path: path ?? (message.isEmpty ? "sink '\(sink)'" : "sink '\(sink)' (\(text))"))
        // Without an output there is no path to name: the sink failed, for lack of permission.
        case PWREC_ERR_PERMISSION:
            return path.map { .filePermissions(path: $0, reason: text) } ?? .failed(sink: sink, reason: "permission denied: " + text)
        default: return .failed(sink: sink, reason: text)
        }
    }

    /// A NUL-terminated C array (imported as a tuple) as a String, never reading past its end.
    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static func cFormat(_ f: VideoFormat) -> pwrec_video_format {
        let pixel: UInt32 = switch f.pixelFormat {
        case .bgrx: PWREC_PIXEL_BGRX
        case .rgbx: PWREC_PIXEL_RGBX
        case .bgra: PWREC_PIXEL_BGRA
        case .rgba: PWREC_PIXEL_RGBA
        }
        return pwrec_video_format(pixel_format: pixel, width: UInt32(f.width), height: UInt32(f.height),
                                  rate_num: UInt32(clamping: f.frameRate.numerator),
                                  rate_den: UInt32(clamping: f.frameRate.denominator))
    }

    static func cFormat(_ f: AudioFormat) -> pwrec_audio_format {
        pwrec_audio_format(sample_format: f.sampleFormat == .f32 ? PWREC_SAMPLE_F32 : PWREC_SAMPLE_S16,
                           sample_rate: UInt32(f.sampleRate), channels: UInt32(f.channels))
    }

    private static func withCOptions<R>(_ pairs: [(key: String, value: String)],
                                        _ body: (UnsafePointer<pwrec_option>?, UInt32) -> R) -> R {
        let strings = pairs.map { (strdup($0.key), strdup($0.value)) }
        defer { for (k, v) in strings { free(k); free(v) } }
        let opts = strings.map { pwrec_option(key: $0.0, value: $0.1) }
        return opts.withUnsafeBufferPointer { body($0.baseAddress, UInt32($0.count)) }
    }

    private static func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return body(nil) }
        return s.withCString { body($0) }
    }
}

private func withOptionalPointer<T, R>(_ value: inout T?, _ body: (UnsafePointer<T>?) -> R) -> R {
    guard value != nil else { return body(nil) }
    return withUnsafePointer(to: &value!) { body($0) }
}
