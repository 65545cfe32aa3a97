import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes a PNG per frame, or every Nth frame, into a folder: `frame-000000.png`, numbered by the frame's
/// position in the recording (so `every=10` gives 000000, 000010, ...).
///
/// PNG encoding runs on the sink's own thread behind a bounded queue; `consume` only queues the frame.
/// Files are created with mode 0600, the folder (if created) with 0700.
public final class FramesSink: CaptureSink, @unchecked Sendable {
    public let id = "frames"

    public struct Options: Sendable, Hashable {
        /// The folder; default: the recording's output.
        public var output: String?
        /// Keep one frame in `every`.
        public var every = 1
        /// File name prefix.
        public var prefix = "frame"
        /// Frames the queue holds before `overflow` applies.
        public var queueCapacity = 8
        /// What happens to a frame when the queue is full.
        public var overflow: Overflow = .drop

        public init() {}
    }

    public enum Overflow: String, Sendable, CaseIterable {
        /// The oldest waiting frame gives way to the new one (counted).
        case drop
        /// Make the delivery thread wait (offline use).
        case block
    }

    private struct Job: Sendable {
        var frame: VideoFrame
        var index: Int
    }

    private struct State {
        var written: [String] = []
        var bytes: Int64 = 0
        var error: SinkError?
    }

    private let options: Options
    private let state = Mutex(State())
    private var worker: SampleWorker<Job>?
    private var directory = ""
    /// The folder, held open from `open` to `close`: each PNG is created in it through `/proc/self/fd/N/`, so
    /// a folder renamed and replaced by a link while recording never carries the frames elsewhere (the policy's
    /// output-dirs checked the folder that is held).
    private var directoryFD: Int32 = -1
    private var received = 0

    public init(options: Options = Options()) {
        self.options = options
    }

    /// The folder is given and can hold the frames (or be made), before consent.
    public func preflight(_ plan: SinkPreflight) throws(SinkError) {
        let dir = try folder(plan.output)
        var st = stat()
        if stat(dir, &st) == 0 {
            try Self.checkFolder(dir, st)
        } else {
            // Made at `open`: as a file there would be, checked as one (its folder exists and is writable).
            try OutputFile.checkDestination(dir, sink: id)
        }
    }

    private func folder(_ output: String?) throws(SinkError) -> String {
        guard let dir = options.output ?? output else {
            throw .invalidOption(sink: id, option: "output", reason: "no output folder; give output=DIR")
        }
        return dir
    }

    /// An existing folder may take the frames: a folder, the user's or root's, not open to everyone.
    private static func checkFolder(_ dir: String, _ st: stat) throws(SinkError) {
        if (st.st_mode & S_IFMT) != S_IFDIR {
            throw .filePermissions(path: dir, reason: "not a folder; the frames sink writes one PNG per frame into a folder")
        } else if st.st_uid != geteuid() && st.st_uid != 0 {
            throw .filePermissions(path: dir, reason: "the folder belongs to another user (uid \(st.st_uid)), who could "
                + "take the frames; choose a folder of your own")
        } else if let reason = PrivateFile.unsafeFolderReason(dir) {
            throw .filePermissions(path: dir, reason: reason)
        }
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        let dir = try folder(context.output)
        var st = stat()
        if stat(dir, &st) != 0 {
            guard mkdir(dir, 0o700) == 0 else {
                throw OutputFile.openError(errno, path: dir)
            }
        } else {
            try Self.checkFolder(dir, st)
        }
        let fd = Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw OutputFile.openError(errno, path: dir) }
        guard fstat(fd, &st) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw OutputFile.openError(error, path: dir)
        }
        do throws(SinkError) { try Self.checkFolder(dir, st) } catch {
            Glibc.close(fd)
            throw error
        }
        if directoryFD >= 0 { Glibc.close(directoryFD) }
        directoryFD = fd
        directory = dir
        let encoder = PNGEncoder()
        let overflow: SampleWorker<Job>.Overflow = options.overflow == .drop ? .drop : .block
        worker = SampleWorker(name: "pwrecord.frames", capacity: options.queueCapacity, overflow: overflow,
                              handle: { [self] job in write(job, encoder: encoder) }, finish: {})
    }

    public func consume(_ sample: CaptureSample) throws(SinkError) {
        guard case .video(let frame) = sample, let worker else { return }
        if let error = state.withLock({ $0.error }) { throw error }
        defer { received += 1 }
        guard received % max(1, options.every) == 0 else { return }
        worker.submit(Job(frame: frame, index: received), droppable: true)
    }

    public func close() throws(SinkError) -> SinkResult {
        worker?.finishAndWait()
        let dropped = worker?.dropped ?? 0
        worker = nil
        if directoryFD >= 0 {
            Glibc.close(directoryFD)
            directoryFD = -1
        }
        let s = state.withLock { $0 }
        if let error = s.error { throw error }
        return SinkResult(files: s.written, videoFrames: s.written.count, bytesWritten: s.bytes, droppedFrames: dropped)
    }

    private func write(_ job: Job, encoder: PNGEncoder) {
        if state.withLock({ $0.error != nil }) { return }
        let digits = String(job.index)
        let name = "\(options.prefix)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).png"
        let path = directory + "/" + name
        let held = "/proc/self/fd/\(directoryFD)/" + name
        do throws(SinkError) {
            guard let png = encoder.encode(job.frame) else {
                throw .failed(sink: id, reason: "libpng could not be set up (png_create_write_struct)")
            }
            let file: OutputFile
            do throws(SinkError) { file = try OutputFile(path: held, sink: id) } catch {
                throw Self.naming(path, for: held, in: error)
            }
            do throws(SinkError) {
                try file.write(png)
                try file.close()
            } catch {
                file.discard()   // a cut-off PNG is no frame (a full disk): its name goes with it
                throw Self.naming(path, for: held, in: error)
            }
            state.withLock { s in
                s.written.append(path)
                s.bytes += Int64(png.count)
            }
        } catch {
            state.withLock { $0.error = $0.error ?? error }
        }
    }
}

extension FramesSink {
    /// `error` naming the frame as the user knows it (`path`) instead of the held folder's `/proc` name.
    static func naming(_ path: String, for held: String, in error: SinkError) -> SinkError {
        switch error {
        case .insufficientStorage(let p) where p == held: .insufficientStorage(path: path)
        case .filePermissions(let p, let reason) where p == held: .filePermissions(path: path, reason: reason)
        case .failed(let sink, let reason): .failed(sink: sink, reason: reason.replacing(held, with: path))
        default: error
        }
    }

    /// The registry entry: `frames:output=DIR,every=N,prefix=frame`.
    public static let factory = SinkFactory(
        id: "frames", summary: "a PNG per frame, or every Nth frame, into a folder",
        options: [
            SinkOptionInfo("output", summary: "folder for the PNGs; needed with 'record --sink'", isPath: true),
            SinkOptionInfo("every", default: "1", summary: "keep one frame in N"),
            SinkOptionInfo("prefix", default: "frame", summary: "file name prefix"),
            SinkOptionInfo("queue", default: "8", summary: "frames queued for encoding before overflow applies"),
            SinkOptionInfo("overflow", default: "drop", choices: Overflow.allCases.map(\.rawValue),
                           summary: "a full queue drops frames (counted) or blocks the delivery thread"),
        ]) { (o) throws(SinkError) in
            var opts = Options()
            opts.output = o.string("output")
            opts.every = try o.int("every", in: 1...1_000_000) ?? 1
            opts.prefix = o.string("prefix") ?? "frame"
            guard !opts.prefix.contains("/") else {
                throw .invalidOption(sink: "frames", option: "prefix", reason: "a prefix cannot contain '/'")
            }
            opts.queueCapacity = try o.int("queue", in: 1...1024) ?? 8
            opts.overflow = try o.choice("overflow", as: Overflow.self) ?? .drop
            return FramesSink(options: opts)
        }
}
