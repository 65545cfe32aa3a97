/// What `ScrollStitcher.consume(_:)` did with one frame.
public enum StitchStep: Sendable, Equatable {
    /// The first frame: the image starts as this frame.
    case started
    /// The content moved by `rows` (positive: scrolled down, new rows appended below; negative: scrolled up,
    /// new rows prepended above). `ambiguous` is true when several movements fit the rows the frames shared
    /// (all blank, or repeating) and one was chosen by rule: the smallest across blank rows, the one nearest
    /// the last movement across repeating rows (see docs/screenshots.md).
    case scrolled(rows: Int, ambiguous: Bool)
    /// Nothing moved; the frame was ignored.
    case unchanged
    /// The frame shares no rows with the previous one (scrolled too far between two frames, or the content
    /// changed); it was ignored, and stitching goes on from the previous frame when the view comes back.
    case unaligned
    /// Taking this frame would make the image taller than `StitchOptions.maximumHeight`: it was not used and
    /// the stitcher accepts no more frames until `finish()`.
    case reachedMaximumHeight
}

/// Counts of what happened to the frames, for progress and for telling the user to scroll more slowly.
public struct StitchStatistics: Sendable, Equatable {
    public var framesConsumed = 0
    public var framesScrolled = 0
    public var framesUnchanged = 0
    public var framesUnaligned = 0
    /// Offsets chosen among several that fit (blank or repeating shared rows): `.scrolled(rows:ambiguous: true)`.
    public var ambiguousOffsets = 0
    public var reachedMaximumHeight = false

    public init() {}
}
