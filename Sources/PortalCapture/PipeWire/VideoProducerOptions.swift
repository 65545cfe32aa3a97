/// Paints one frame: `pixels` holds `stride * format.height` bytes in `format.pixelFormat`'s byte order.
/// Called on the producer's loop thread; must not block.
public typealias VideoFrameRenderer = @Sendable (_ pixels: UnsafeMutableRawPointer, _ stride: Int,
                                                 _ format: VideoFormat, _ frameNumber: UInt32) -> Void

/// Where the pointer is on frame `frameNumber` of a `width x height` stream (nil: no pointer in the stream).
/// Called on the producer's loop thread.
public typealias CursorProvider = @Sendable (_ frameNumber: UInt32, _ width: Int, _ height: Int) -> CursorState?

/// How a `VideoProducerStream` presents itself (options are values).
public struct VideoProducerOptions: Sendable, Equatable {
    /// Pixel format, size and frame rate offered (a fixed `SPA_PARAM_EnumFormat`).
    public var format = VideoFormat(pixelFormat: .bgrx, width: 1280, height: 720, frameRate: FrameRate(30))
    /// `node.name`
    public var nodeName = "pwrecord-producer"
    /// `media.class`
    public var mediaClass = "Video/Source"
    /// Buffers to allocate (memfd each), offered as the default of a 2...16 range.
    public var bufferCount = 4
    /// Attach `SPA_META_Cursor` with room for a bitmap up to `maxCursorSize` pixels square.
    public var cursorMetadata = false
    public var maxCursorSize = 64
    /// Offer DMA-BUF with these DRM format modifiers (empty: shared memory only), as a GPU compositor does:
    /// an EnumFormat with `SPA_FORMAT_VIDEO_modifier` (MANDATORY | DONT_FIXATE) before the shared-memory one.
    /// Once the link has intersected the modifiers with the consumer's, the producer fixates one (explicit
    /// modifiers before `.invalid`) and, with that format, hands out buffers typed `SPA_DATA_DmaBuf`.
    ///
    /// A stand-in: there is no GPU here, so those "DMA-BUFs" are memfds painted linearly whatever the
    /// modifier says. A memfd maps like a linear DMA-BUF, so this proves the negotiation and a consumer's
    /// mmap path, not a real device buffer (its sync ioctl answers `ENOTTY`).
    public var dmaBufModifiers: [DRMFormatModifier] = []
    /// Whether those DMA-BUFs announce their size. False plays xdg-desktop-portal-wlr, which cannot know it:
    /// `maxsize` 0, and a placeholder `chunk.size` of 9 on every frame (a consumer must take the size from
    /// the fd).
    public var dmaBufAnnouncesSize = true
    /// Whether a consumer can map those DMA-BUFs. False hands out fds open for writing alone, so a read
    /// mapping fails as it does for a device buffer whose driver refuses CPU access.
    public var dmaBufMappable = true
    /// Bytes `maxsize` claims beyond the memfd behind each buffer, and where each chunk then says its picture
    /// starts (`chunk.offset`): a producer pointing past the end of its buffers, which only the file's real
    /// size shows (a read past the end of a memfd raises SIGBUS). The picture is still painted at offset 0.
    public var overstatedBytes = 0
    /// How long before it is queued a frame is stamped (`SPA_META_Header.pts`), in nanoseconds: a compositor
    /// stamps a frame when it composed it, and a loaded machine sends it on later.
    public var presentationLead: UInt64 = 0
    /// Start without producing frames until `resume()`.
    public var startPaused = false
    /// Extra `pw_stream` properties, applied last.
    public var properties: [String: String] = [:]

    public init() {}

    public init(format: VideoFormat, nodeName: String = "pwrecord-producer") {
        self.format = format
        self.nodeName = nodeName
    }

    func validate() throws(PipeWireError) {
        try Self.validate(format)
        if bufferCount < 2 || bufferCount > 16 { throw .invalidArgument("bufferCount \(bufferCount) (2...16)") }
        if maxCursorSize < 1 || maxCursorSize > 512 { throw .invalidArgument("maxCursorSize \(maxCursorSize) (1...512)") }
        if overstatedBytes < 0 || overstatedBytes > 1 << 24 { throw .invalidArgument("overstatedBytes \(overstatedBytes) (0...16 MiB)") }
        if presentationLead > 10_000_000_000 { throw .invalidArgument("presentationLead \(presentationLead) ns (at most 10 s)") }
    }

    static func validate(_ format: VideoFormat) throws(PipeWireError) {
        if format.width < 1 || format.height < 1 || format.width > 16384 || format.height > 16384 {
            throw .invalidArgument("size \(format.width)x\(format.height) (1...16384)")
        }
        if format.frameRate.numerator < 1 || format.frameRate.denominator < 1 || format.frameRate.framesPerSecond > 1000 {
            throw .invalidArgument("frame rate \(format.frameRate) (above 0, at most 1000)")
        }
    }
}
