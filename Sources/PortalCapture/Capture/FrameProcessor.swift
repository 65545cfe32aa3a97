/// Applies `FrameProcessingOptions` to each frame of one stream; the recorder runs one per video stream,
/// frame after frame, from one thread at a time (it remembers the cursor bitmap between frames).
///
/// The result is exactly that of compositing the cursor, then painting the masks, then cropping (see
/// `CursorCompositor`, `FrameMask`, `FrameCrop` for the pixel rules). It is computed in one pass that copies
/// only the kept region into a storage from `pool` and draws cursor and masks there, so the input frame is
/// never written to (other sinks may share it) and nothing is allocated per frame once the pool is warm.
/// When the options change nothing (`isIdentity`), or change nothing for this frame (no cursor or masks to
/// draw, and the crop keeps all of it), `process` returns the input frame itself.
///
/// A frame whose cursor was composited comes out with `cursor == nil` so nothing draws it twice.
public struct FrameProcessor: Sendable {
    public let options: FrameProcessingOptions
    public let pool: FramePool
    public private(set) var compositor = CursorCompositor()

    /// - Parameter pool: where output frames live; size it for the frames that can be alive at once (the
    ///   delivery queue's video capacity plus two).
    public init(options: FrameProcessingOptions, pool: FramePool = FramePool(maximumCount: 12)) {
        self.options = options
        self.pool = pool
    }

    /// The processed frame, or the input itself when the options are the identity.
    public mutating func process(_ frame: VideoFrame) throws(FrameTransformError) -> VideoFrame {
        if options.isIdentity { return frame }
        let region = try options.crop.effectiveRegion(for: frame)
        if !options.compositesCursor, options.mask.isEmpty,
           region == PixelRect(x: 0, y: 0, width: frame.format.width, height: frame.format.height) {
            // Nothing to draw and the whole frame kept (a recording honours stream crops, and most frames have
            // none): the input itself, as `copying` would have described it, instead of one more 8 MB copy.
            var output = frame
            output.crop = options.crop.honoursStreamCrop ? nil : frame.crop?.clampedForArithmetic.intersection(region)
            if var cursor = frame.cursor {
                let position = PixelRect(x: cursor.x, y: cursor.y, width: 0, height: 0).clampedForArithmetic
                // A new box only when clamping moved it (most frames share the stream's box).
                if position.x != cursor.x || position.y != cursor.y {
                    (cursor.x, cursor.y) = (position.x, position.y)
                    output.cursor = cursor
                }
            }
            return output
        }
        var output = frame.copying(region, pool: pool, keepsStreamCrop: !options.crop.honoursStreamCrop)
        if options.compositesCursor {
            compositor.composite(frame.cursor, onto: output, originX: region.x, originY: region.y)
            output.cursor = nil
        }
        options.mask.apply(to: output, originX: region.x, originY: region.y)
        return output
    }

    /// The format of processed frames for input in `format` (with the stream's crop metadata `streamCrop`, if
    /// honoured): what a sink is opened with.
    public func outputFormat(for format: VideoFormat,
                             streamCrop: PixelRect? = nil) throws(FrameTransformError) -> VideoFormat {
        let region = try options.crop.effectiveRegion(width: format.width, height: format.height,
                                                      streamCrop: streamCrop)
        var output = format
        output.width = region.width
        output.height = region.height
        return output
    }
}
