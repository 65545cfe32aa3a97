/// Cuts a region out of frames: the result is a new frame of the region's size (tightly packed rows, the
/// same pixel format, timestamp and sequence).
///
/// Pixel rule: output pixel (x, y) is input pixel (region.x + x, region.y + y), bytes copied unchanged, where
/// `region` is the effective region: `region` (the whole frame when nil) clipped to the frame and, when
/// `honoursStreamCrop` is set and the frame carries one, to the frame's own valid area (`VideoFrame.crop`,
/// from `SPA_META_VideoCrop`). An empty effective region is an error, not an empty frame.
///
/// Metadata moves with the pixels: the output's cursor position is relative to its new top-left, and its
/// `crop` is the input's crop in output coordinates (nil once honoured, or when nothing of it remains).
public struct FrameCrop: Sendable, Hashable {
    /// The region in stream coordinates; nil means the whole frame.
    public var region: PixelRect?
    /// Whether to also cut to the frame's own `crop` metadata.
    public var honoursStreamCrop: Bool

    public init(region: PixelRect?, honoursStreamCrop: Bool = false) {
        self.region = region
        self.honoursStreamCrop = honoursStreamCrop
    }

    /// Whether this crop leaves every frame as it is.
    public var isIdentity: Bool { region == nil && !honoursStreamCrop }

    /// The part of `frame` this crop keeps.
    public func effectiveRegion(for frame: VideoFrame) throws(FrameTransformError) -> PixelRect {
        try effectiveRegion(width: frame.format.width, height: frame.format.height, streamCrop: frame.crop)
    }

    /// The part of a `width x height` frame with crop metadata `streamCrop` this crop keeps.
    public func effectiveRegion(width: Int, height: Int,
                                streamCrop: PixelRect?) throws(FrameTransformError) -> PixelRect {
        var valid = PixelRect(x: 0, y: 0, width: width, height: height)
        if honoursStreamCrop, let streamCrop {
            guard let inside = streamCrop.clampedForArithmetic.intersection(valid) else {
                throw .regionOutsideFrame(region: region ?? streamCrop, frame: valid)
            }
            valid = inside
        }
        guard let region else { return valid }
        guard let kept = region.clampedForArithmetic.intersection(valid) else {
            throw .regionOutsideFrame(region: region, frame: valid)
        }
        return kept
    }

    /// A new frame holding the effective region of `frame`, in a storage from `pool`.
    public func apply(to frame: VideoFrame, pool: FramePool) throws(FrameTransformError) -> VideoFrame {
        frame.copying(try effectiveRegion(for: frame), pool: pool, keepsStreamCrop: !honoursStreamCrop)
    }
}

extension VideoFrame {
    /// A tightly packed copy of `region` (inside the frame) in a storage from `pool`, with the cursor and, when
    /// `keepsStreamCrop`, the crop metadata moved to the copy's coordinates.
    func copying(_ region: PixelRect, pool: FramePool, keepsStreamCrop: Bool) -> VideoFrame {
        var format = self.format
        format.width = region.width
        format.height = region.height
        let rowBytes = region.width * 4
        let storage = pool.acquire(capacity: rowBytes * region.height)
        let source = self.storage.bytes.advanced(by: region.y * stride + region.x * 4)
        if region.x == 0 && rowBytes == stride {
            storage.bytes.copyMemory(from: source, byteCount: rowBytes * region.height)
        } else {
            for row in 0 ..< region.height {
                storage.bytes.advanced(by: row * rowBytes)
                    .copyMemory(from: source.advanced(by: row * stride), byteCount: rowBytes)
            }
        }
        var cursor = self.cursor
        if let position = cursor.map({ PixelRect(x: $0.x, y: $0.y, width: 0, height: 0).clampedForArithmetic }) {
            cursor?.x = position.x - region.x
            cursor?.y = position.y - region.y
        }
        let crop = keepsStreamCrop
            ? self.crop?.clampedForArithmetic.intersection(region)?.offsetBy(dx: -region.x, dy: -region.y) : nil
        return VideoFrame(format: format, stride: rowBytes, timestamp: timestamp, sequence: sequence,
                          crop: crop, cursor: cursor, storage: storage)
    }
}
