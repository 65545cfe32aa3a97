/// How `ScrollStitcher` works, as a value built fluently: `StitchOptions().region(r).maximumHeight(20_000)`.
public struct StitchOptions: Sendable, Equatable {
    /// The part of each frame that scrolls (e.g. a browser's page area), in frame pixels; nil takes the
    /// frame's valid crop (`SPA_META_VideoCrop`) or the whole frame.
    public var region: PixelRect?
    /// The tallest image to build, in rows. The frame that would take the image past it is not used, the
    /// stitcher stops and reports `.reachedMaximumHeight`.
    public var maximumHeight: Int
    /// The fewest rows two frames must share for any offset to be taken, so an offset is never guessed from
    /// a sliver (docs/screenshots.md); a change confined to fewer rows (a blinking caret) counts as unchanged.
    public var minimumOverlap: Int
    /// The share of shared rows that may differ when an offset is found through distinct rows (an animation
    /// in the page, a blinking caret, a pointer drawn into the frames), 0...0.5. Offsets found by the
    /// blank-overlap rule must match exactly. The image keeps each row as it was first seen.
    public var mismatchTolerance: Double

    public init(region: PixelRect? = nil, maximumHeight: Int = 30_000, minimumOverlap: Int = 16,
                mismatchTolerance: Double = 0.25) {
        self.region = region
        self.maximumHeight = maximumHeight
        self.minimumOverlap = minimumOverlap
        self.mismatchTolerance = mismatchTolerance
    }

    public func region(_ value: PixelRect?) -> Self { var o = self; o.region = value; return o }
    public func maximumHeight(_ value: Int) -> Self { var o = self; o.maximumHeight = value; return o }
    public func minimumOverlap(_ value: Int) -> Self { var o = self; o.minimumOverlap = value; return o }
    public func mismatchTolerance(_ value: Double) -> Self { var o = self; o.mismatchTolerance = value; return o }
}
