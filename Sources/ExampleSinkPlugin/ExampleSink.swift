// An example third-party sink plugin, written in Swift against the C ABI only (`pwrec_plugin.h`).
//
// Sink id `framestats`: writes one line per video frame (sequence, capture time, size, format, an FNV-1a
// 64-bit checksum of the visible pixel bytes, and the mean red, green and blue) and a summary line with the
// audio it received, to a text file. See docs/plugins.md for how to build and install a plugin.
import CPluginABI
#if canImport(Glibc)
import Glibc
#endif

/// The entry point pwrecord looks up with `dlsym`. Returns the version-1 table, or nil for a host that does
/// not speak version 1.
@c(pwrec_sink_entry)
public func pwrecSinkEntry(_ hostABI: UInt32) -> UnsafePointer<pwrec_sink_v1>? {
    guard hostABI >= 1 else { return nil }
    return UnsafePointer(pluginTable)
}

/// The table and the strings it points to: built once (Swift globals are initialized lazily and thread-safely)
/// and never freed, as the host never unloads the library.
nonisolated(unsafe) private let pluginTable: UnsafeMutablePointer<pwrec_sink_v1> = {
    let options = UnsafeMutablePointer<pwrec_option_info>.allocate(capacity: 2)
    options[0] = pwrec_option_info(name: strdup("output"), default_value: nil,
                                   description: strdup("text file to write (required with pwrecord record, which gives plugins no output)"))
    options[1] = pwrec_option_info(name: strdup("every"), default_value: strdup("1"),
                                   description: strdup("checksum one frame in N"))
    let table = UnsafeMutablePointer<pwrec_sink_v1>.allocate(capacity: 1)
    table.initialize(to: pwrec_sink_v1(
        abi_version: 1,
        struct_size: UInt32(MemoryLayout<pwrec_sink_v1>.size),
        id: UnsafePointer(strdup("framestats")),
        description: UnsafePointer(strdup("example plugin: per-frame checksums and statistics to a text file")),
        options: UnsafePointer(options),
        option_count: 2,
        create: { options, count, out, error in FrameStatsSink.create(options, Int(count), out, error) },
        open: { sink, params, error in FrameStatsSink.from(sink).open(params!.pointee, error) },
        write_video: { sink, frame, error in FrameStatsSink.from(sink).writeVideo(frame!.pointee, error) },
        write_audio: { sink, chunk, _ in FrameStatsSink.from(sink).writeAudio(chunk!.pointee) },
        format_changed: nil,
        close: { sink, result, error in FrameStatsSink.from(sink).close(result, error) },
        destroy: { sink in Unmanaged<FrameStatsSink>.fromOpaque(sink!).release() }))
    return table
}()

/// One plugin instance. The host calls it from one thread at a time (the ABI's promise), so no locking.
private final class FrameStatsSink {
    var outputOption: String?
    var every = 1
    var fd: Int32 = -1
    var path = ""
    var frames: UInt64 = 0
    var received: UInt64 = 0
    var audioFrames: UInt64 = 0
    var bytes: UInt64 = 0
    var resultPath: UnsafeMutablePointer<CChar>?
    var resultFiles = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 1)

    deinit {
        if fd >= 0 { Glibc.close(fd) }
        free(resultPath)
        resultFiles.deallocate()
    }

    static func from(_ p: UnsafeMutableRawPointer?) -> FrameStatsSink {
        Unmanaged<FrameStatsSink>.fromOpaque(p!).takeUnretainedValue()
    }

    static func create(_ options: UnsafePointer<pwrec_option>?, _ count: Int,
                       _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ error: UnsafeMutablePointer<pwrec_error>?) -> Int32 {
        let sink = FrameStatsSink()
        for i in 0..<count {
            let o = options![i]
            let key = String(cString: o.key), value = String(cString: o.value)
            switch key {
            case "output": sink.outputOption = value
            case "every":
                guard let n = Int(value), n >= 1 else {
                    return FrameStatsSink.fail(error, PWREC_ERR_INVALID_OPTION, option: key, "'\(value)' is not a whole number of at least 1")
                }
                sink.every = n
            default:
                return FrameStatsSink.fail(error, PWREC_ERR_INVALID_OPTION, option: key, "unknown option")
            }
        }
        out!.pointee = Unmanaged.passRetained(sink).toOpaque()
        return PWREC_OK
    }

    func open(_ params: pwrec_open_params, _ error: UnsafeMutablePointer<pwrec_error>?) -> Int32 {
        guard let p = outputOption ?? params.output.map({ String(cString: $0) }) else {
            return FrameStatsSink.fail(error, PWREC_ERR_INVALID_OPTION, option: "output", "no output file; give output=FILE")
        }
        path = p
        // A recording's statistics are private: never through a symlink someone planted at the name (O_NOFOLLOW),
        // and an existing file of ours is made 0600 before it is emptied.
        fd = Glibc.open(p, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; give the file itself" : String(cString: strerror(errno))
            return FrameStatsSink.fail(error, errno == ENOSPC ? PWREC_ERR_NO_SPACE : PWREC_ERR_PERMISSION, option: "",
                        "cannot create \(p): \(reason)")
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, fchmod(fd, 0o600) != 0 || ftruncate(fd, 0) != 0 {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            return FrameStatsSink.fail(error, PWREC_ERR_PERMISSION, option: "", "cannot make \(p) private and empty: \(reason)")
        }
        return emit("# pwrecord framestats 1: frame sequence timestamp_ns width height format fnv1a64 mean_r mean_g mean_b\n", error)
    }

    func writeVideo(_ f: pwrec_video_frame, _ error: UnsafeMutablePointer<pwrec_error>?) -> Int32 {
        defer { received += 1 }
        guard received % UInt64(every) == 0 else { return PWREC_OK }
        let w = Int(f.format.width), h = Int(f.format.height), stride = Int(f.stride)
        guard let data = f.data, f.size >= UInt64(stride * h), stride >= w * 4 else {
            return FrameStatsSink.fail(error, PWREC_ERR_UNSUPPORTED, option: "", "frame buffer smaller than its format")
        }
        // Pixel layout: byte offsets of red and blue (green is always 1).
        let bgr = f.format.pixel_format == PWREC_PIXEL_BGRX || f.format.pixel_format == PWREC_PIXEL_BGRA
        let ro = bgr ? 2 : 0, bo = bgr ? 0 : 2
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var sum = (r: 0, g: 0, b: 0)
        for y in 0..<h {
            let row = data + y * stride
            for i in 0..<(w * 4) {
                hash = (hash ^ UInt64(row[i])) &* 0x0000_0100_0000_01b3
            }
            for x in 0..<w {
                sum.r += Int(row[x * 4 + ro]); sum.g += Int(row[x * 4 + 1]); sum.b += Int(row[x * 4 + bo])
            }
        }
        let n = Double(max(1, w * h))
        let names = [PWREC_PIXEL_BGRX: "BGRx", PWREC_PIXEL_RGBX: "RGBx", PWREC_PIXEL_BGRA: "BGRA", PWREC_PIXEL_RGBA: "RGBA"]
        let hex = String(hash, radix: 16)
        let line = "frame \(f.sequence) \(f.timestamp_ns) \(w) \(h) \(names[f.format.pixel_format] ?? "?") "
            + String(repeating: "0", count: 16 - hex.count) + hex
            + " \(format1(Double(sum.r) / n)) \(format1(Double(sum.g) / n)) \(format1(Double(sum.b) / n))\n"
        frames += 1
        return emit(line, error)
    }

    func writeAudio(_ c: pwrec_audio_chunk) -> Int32 {
        audioFrames += c.frame_count
        return PWREC_OK
    }

    func close(_ result: UnsafeMutablePointer<pwrec_sink_result>?, _ error: UnsafeMutablePointer<pwrec_error>?) -> Int32 {
        var status = PWREC_OK
        if fd >= 0 {
            status = emit("# summary frames=\(frames) received=\(received) audio_frames=\(audioFrames)\n", error)
            Glibc.close(fd)
            fd = -1
        }
        if let result, result.pointee.struct_size >= UInt32(MemoryLayout<pwrec_sink_result>.size) {
            result.pointee.video_frames = frames
            result.pointee.audio_frames = audioFrames
            result.pointee.bytes_written = bytes
            if !path.isEmpty {
                resultPath = strdup(path)
                resultFiles[0] = UnsafePointer(resultPath)
                result.pointee.files = UnsafePointer(resultFiles)
                result.pointee.file_count = 1
            }
        }
        return status
    }

    private func emit(_ text: String, _ error: UnsafeMutablePointer<pwrec_error>?) -> Int32 {
        var utf8 = Array(text.utf8)
        var done = 0
        while done < utf8.count {
            let n = utf8.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno == ENOSPC || errno == EDQUOT ? PWREC_ERR_NO_SPACE : PWREC_ERR_FAILED
                return FrameStatsSink.fail(error, code, option: "", "writing \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        bytes += UInt64(done)
        return PWREC_OK
    }

    private func format1(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Fills the host's error record and returns `code`.
    static func fail(_ error: UnsafeMutablePointer<pwrec_error>?, _ code: Int32, option: String, _ message: String) -> Int32 {
        guard let error else { return code }
        copy(option, into: &error.pointee.option)
        copy(message, into: &error.pointee.message)
        return code
    }

    private static func copy<T>(_ text: String, into field: inout T) {
        withUnsafeMutableBytes(of: &field) { raw in
            let bytes = Array(text.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }
}
