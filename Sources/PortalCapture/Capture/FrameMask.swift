/// Rectangles painted over with a solid colour: how a user keeps a part of the screen (a notification area,
/// a password field) out of a recording.
///
/// Pixel rule: every pixel inside any of `rectangles`, clipped to the frame, gets `colour`'s bytes in the
/// frame's layout (`PixelColour.bytes(in:)`): red, green and blue at the format's offsets, the fourth byte
/// `colour.alpha` in BGRA/RGBA and 255 in BGRx/RGBx. Rectangles that are empty or outside the frame paint
/// nothing.
public struct FrameMask: Sendable, Hashable {
    public var rectangles: [PixelRect]
    public var colour: PixelColour

    public init(_ rectangles: [PixelRect], colour: PixelColour = .black) {
        self.rectangles = rectangles
        self.colour = colour
    }

    public var isEmpty: Bool { rectangles.allSatisfy(\.isEmpty) }

    /// Paints the rectangles into `frame`'s own storage, in place. Call it only on a frame you own.
    public func apply(to frame: VideoFrame) {
        apply(to: frame, originX: 0, originY: 0)
    }

    /// Paints the rectangles (in stream coordinates) into `frame`, whose top-left pixel is the stream's
    /// `(originX, originY)`.
    public func apply(to frame: VideoFrame, originX: Int, originY: Int) {
        let pixel = colour.bytes(in: frame.format.pixelFormat)
        let word = withUnsafeBytes(of: pixel) { $0.load(as: UInt32.self) }
        for rectangle in rectangles {
            guard let visible = rectangle.clampedForArithmetic.offsetBy(dx: -originX, dy: -originY)
                .intersection(frame.bounds) else {
                continue
            }
            for y in visible.y ..< visible.y + visible.height {
                UnsafeMutableRawPointer(frame.mutablePixel(x: visible.x, y: y))
                    .initializeMemory(as: UInt32.self, repeating: word, count: visible.width)
            }
        }
    }
}
