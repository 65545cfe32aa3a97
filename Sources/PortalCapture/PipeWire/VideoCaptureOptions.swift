/// How a `VideoCaptureStream` negotiates (options are values; defaults suit a screen cast).
public struct VideoCaptureOptions: Sendable, Equatable {
    /// Pixel formats to accept, most preferred first (the `SPA_FORMAT_VIDEO_format` enum choice).
    public var formats: [PixelFormat] = [.bgrx, .bgra, .rgbx, .rgba]
    /// Size range offered (`SPA_FORMAT_VIDEO_size`); the preferred size is the choice's default.
    public var preferredWidth = 1920
    public var preferredHeight = 1080
    public var maxWidth = 16384
    public var maxHeight = 16384
    /// Frame rate range offered (`SPA_FORMAT_VIDEO_framerate`, 0/1 up to `maxFrameRate`).
    public var preferredFrameRate = FrameRate(60)
    public var maxFrameRate = FrameRate(1000)
    /// Offer DMA-BUF with the linear modifier too (read by mmap like shared memory): one EnumFormat per pixel
    /// format with `SPA_FORMAT_VIDEO_modifier`, before the shared-memory one. Off: shared memory only.
    public var linearDmaBuf = true
    /// Ask for `SPA_META_Cursor` (the portal's cursor mode "metadata") with bitmaps up to
    /// `maxCursorSize` pixels square.
    public var cursorMetadata = true
    public var maxCursorSize = 256
    /// End the stream with `.noFrames` when no buffer arrives for this long (nil: never). Note that
    /// compositors send nothing while the screen does not change, so pick a generous value.
    public var noFrameTimeout: Duration?
    /// Hand frames on in PipeWire's own (memfd) buffers instead of copying them (see `BufferLender`). A
    /// frame is still copied when the buffer is not memfd, `maximumBorrowedFrames` are still held downstream,
    /// or only `buffersLeftToProducer` would be left.
    public var zeroCopy = true
    /// Frames holding a PipeWire buffer at once. One suffices for sinks that keep up (each frame is released
    /// before the next arrives); more let a slow sink slow the producer down.
    public var maximumBorrowedFrames = 1
    /// Buffers asked of the producer (`SPA_PARAM_BUFFERS_buffers` default; the producer has the last word).
    /// Four let one frame be borrowed while the producer fills one, one travels and one waits to be recycled;
    /// each is a memfd mapped here (8.3 MB at 1080p BGRx), so more cost memory without saving copies.
    public var bufferCount = 4
    /// Buffers never lent to frames, so the producer always has one to fill.
    public var buffersLeftToProducer = 2
    /// How long this process keeps the producer's memfd buffers' pages mapped in (see `BufferMapping`).
    public var bufferMapping = BufferMapping.persistent
    /// Frame storages the stream's own pool keeps (when no storage provider is given). A frame is skipped
    /// (counted in `skippedNoStorage`) when all are still held downstream.
    public var storagePoolSize = 6
    /// Which thread runs `process` and so the frame handler (see `ProcessThread`).
    public var processThread = ProcessThread.data
    /// `node.name` of the consumer node.
    public var nodeName = "pwrecord-video"
    /// Extra `pw_stream` properties (`PW_KEY_*`), applied last.
    public var properties: [String: String] = [:]

    public init() {}

    /// Whether a memfd buffer's pages stay in this process's page tables between frames (zero copy only;
    /// MemPtr buffers come mapped by PipeWire either way).
    ///
    /// The pages are the producer's shared memory (the compositor's memfd) in both cases: nothing is allocated
    /// or freed, only whether this process maps them in, which is what its RSS (`RssShmem`) counts.
    public enum BufferMapping: String, Sendable, Equatable, CaseIterable {
        /// Every buffer is mapped once, when PipeWire adds it, and its pages stay mapped in after the first
        /// read: no per-frame cost, but every buffer (8.3 MB at 1080p BGRx) counts in RSS once read.
        case persistent
        /// Each buffer is still mapped once (`mmap`, read-only), but its pages are dropped from this process
        /// (`madvise(MADV_DONTNEED)`) when the frame borrowing it is released, and after a copy read from it:
        /// only buffers held by frames count in RSS. Each buffer's pages are mapped in again when it is lent
        /// (`MADV_POPULATE_READ`, on the thread running `process`): 0.7 ms of CPU per 1080p frame in isolation, 1–2 ms in a
        /// busy encoding pipeline on the bench machine (bench/README.md, recording-memory).
        case whileLent
    }

    /// The thread on which the stream takes its buffers and calls the frame handler.
    public enum ProcessThread: String, Sendable, Equatable, CaseIterable {
        /// PipeWire's data thread (`PW_STREAM_FLAG_RT_PROCESS`), the one PipeWire wakes for each graph cycle:
        /// no second thread is woken per frame (bench/README.md, capture). The handler must return at once:
        /// while it runs, the graph cycle waits, and the producer's next frames queue up behind it, oldest first.
        case data
        /// The core's loop thread (`pw_loop_invoke` from the data thread: one more wake-up per frame). A slow
        /// handler then holds up only this thread: buffers arriving meanwhile wait in the stream, and the next
        /// `process` takes the newest of them (the older ones are counted in `skippedStale`). It still holds the
        /// loop lock while it runs: a handler that is slow all the time starves every other user of the lock,
        /// `stop()` included (seconds, even minutes on a loaded machine, were measured in a test). A sink that
        /// keeps frames (40 ms each at 60 fps) gets fewer of them here than on the data thread: 40 a second
        /// instead of 60, a PipeWire behaviour a plain C consumer shows too (docs/pipewire.md).
        case loop
    }

    /// Validates the values; `invalidArgument` names the first bad one.
    func validate() throws(PipeWireError) {
        if formats.isEmpty { throw .invalidArgument("formats is empty") }
        if preferredWidth < 1 || preferredHeight < 1 || maxWidth < preferredWidth || maxHeight < preferredHeight {
            throw .invalidArgument("size \(preferredWidth)x\(preferredHeight) (max \(maxWidth)x\(maxHeight))")
        }
        if preferredFrameRate.denominator < 1 || maxFrameRate.denominator < 1 || maxFrameRate.numerator < 1 {
            throw .invalidArgument("frame rate \(preferredFrameRate) (max \(maxFrameRate))")
        }
        // The cursor meta's and a frame's byte sizes go to PipeWire as Int32: refused here, not trapped on the
        // first format.
        if maxCursorSize < 1 || maxCursorSize > 4096 { throw .invalidArgument("maxCursorSize \(maxCursorSize) (1...4096)") }
        if maxWidth > 16384 || maxHeight > 16384 {
            throw .invalidArgument("max size \(maxWidth)x\(maxHeight) (at most 16384 on each side)")
        }
        if let t = noFrameTimeout, t <= .zero { throw .invalidArgument("noFrameTimeout \(t)") }
        if !(2...16).contains(bufferCount) { throw .invalidArgument("bufferCount \(bufferCount) (2...16)") }
        if maximumBorrowedFrames < 1 { throw .invalidArgument("maximumBorrowedFrames \(maximumBorrowedFrames)") }
        if buffersLeftToProducer < 1 { throw .invalidArgument("buffersLeftToProducer \(buffersLeftToProducer)") }
        if storagePoolSize < 1 { throw .invalidArgument("storagePoolSize \(storagePoolSize)") }
    }
}
