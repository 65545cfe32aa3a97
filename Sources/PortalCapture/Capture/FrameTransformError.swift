/// Why a frame transform could not produce a frame.
public enum FrameTransformError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The crop region (after clipping to the frame, and to the stream's own `SPA_META_VideoCrop` region
    /// when that is honoured) is empty: nothing of the frame would remain.
    case regionOutsideFrame(region: PixelRect, frame: PixelRect)

    public var description: String {
        switch self {
        case .regionOutsideFrame(let region, let frame):
            "crop region \(region) does not overlap the \(frame.width)x\(frame.height) frame's valid area \(frame); "
                + "choose a region inside the captured source"
        }
    }
}
