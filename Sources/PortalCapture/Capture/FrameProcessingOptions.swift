/// What to do to every video frame before the sinks see it: how a user keeps UI out of a recording
/// (ReplayKit's separate window). Built fluently; unset parts do nothing:
///
///     FrameProcessingOptions().compositingCursor().masking([notificationArea]).cropping(to: appArea)
///
/// The parts apply in this order: composite the cursor, then paint the masks, then crop. Cursor position,
/// mask rectangles and crop region are all in stream coordinates.
public struct FrameProcessingOptions: Sendable, Hashable {
    /// Draw the metadata cursor into the frames (`CursorCompositor`).
    public var compositesCursor = false
    /// Rectangles to paint over (`FrameMask`).
    public var mask = FrameMask([])
    /// The region to keep (`FrameCrop`).
    public var crop = FrameCrop(region: nil)

    public init() {}

    /// Whether frames pass through unchanged (and uncopied).
    public var isIdentity: Bool { !compositesCursor && mask.isEmpty && crop.isIdentity }

    public func compositingCursor(_ on: Bool = true) -> Self {
        var copy = self
        copy.compositesCursor = on
        return copy
    }

    public func masking(_ rectangles: [PixelRect], colour: PixelColour = .black) -> Self {
        var copy = self
        copy.mask = FrameMask(rectangles, colour: colour)
        return copy
    }

    /// Keep `region` only; with `honouringStreamCrop`, also cut to the stream's `SPA_META_VideoCrop` area.
    public func cropping(to region: PixelRect?, honouringStreamCrop: Bool = false) -> Self {
        var copy = self
        copy.crop = FrameCrop(region: region, honoursStreamCrop: honouringStreamCrop)
        return copy
    }
}
