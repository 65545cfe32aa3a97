/// Builds one tall image from frames of scrolling content, as they arrive: memory is the image plus the
/// row fingerprints of one frame (frames themselves are not kept).
///
/// For each frame it fingerprints the rows of the stitched area (`StitchOptions.region`, else the frame's
/// crop, else the whole frame), finds the movement against the previous frame with `ScrollAligner` (row
/// hashing and alignment, no pixel search), and adds only the rows never seen before: below when scrolling
/// down, above when scrolling up. Rows that stay put while the rest moves (a sticky header or footer) are
/// kept once: the header as the topmost frame showed it, the footer as the bottommost frame showed it.
/// The algorithm and the blank-overlap rule are described in docs/screenshots.md.
///
/// Threading: not thread-safe; feed it from one thread or queue (the recorder's delivery queue).
public final class ScrollStitcher {
    public let options: StitchOptions
    public private(set) var statistics = StitchStatistics()

    /// Rows the image has so far (0 before the first frame).
    public var height: Int { store == nil ? 0 : bottom + rows - top }

    /// The fewest rows the stitched area may have.
    public static let minimumAreaHeight = 8

    private var area: PixelRect?
    private var store: RowStore?
    private var previous = RowSignatures()
    private var current = RowSignatures()
    private var aligner = ScrollAligner()
    private var rows: Int { area?.height ?? 0 }
    /// Content coordinates (row 0 = first frame's top): where the current reference frame, the topmost and
    /// the bottommost frame start.
    private var position = 0, top = 0, bottom = 0
    /// The rows written as scrolling content (not as a fixed band): `[settledTop, settledBottom)`.
    private var settledTop = 0, settledBottom = 0, bandsKnown = false
    /// The offset of the last step (0 before the first): the aligner prefers the movement nearest it when
    /// several fit (scrolling is smooth).
    private var lastMovement = 0
    private var opaque = true, stopped = false

    public init(options: StitchOptions = StitchOptions()) {
        self.options = options
    }

    /// Adds one frame. Throws when the stitched area is not inside the first frame, and `frameSizeChanged`
    /// when a later frame's area has another size or no longer fits (the image so far stays for `finish`).
    @discardableResult
    public func consume(_ frame: VideoFrame) throws(ScreenshotError) -> StitchStep {
        statistics.framesConsumed += 1
        if stopped { return .reachedMaximumHeight }
        let found: PixelRect
        do {
            found = try StitchRegion.resolve(options.region, in: frame, minimumHeight: Self.minimumAreaHeight)
        } catch {
            // A later frame the area no longer fits (the window shrank under the region, or its crop under the
            // minimum height) is the source changing size: what was stitched stays (`frameSizeChanged`).
            guard let area else { throw error }
            let size = options.region == nil ? frame.crop.map { ($0.width, $0.height) } : nil
            throw .frameSizeChanged(fromWidth: area.width, fromHeight: area.height,
                                    toWidth: size?.0 ?? frame.format.width, toHeight: size?.1 ?? frame.format.height)
        }
        guard let area else {
            // Even the first frame is taller than allowed: nothing could ever be stitched.
            guard found.height <= options.maximumHeight else {
                throw .invalidOption(name: "maximumHeight", reason: "\(options.maximumHeight) is below the captured height "
                                     + "\(found.height); allow at least \(found.height)")
            }
            return start(frame, area: found)
        }
        guard found.width == area.width, found.height == area.height else {
            throw .frameSizeChanged(fromWidth: area.width, fromHeight: area.height,
                                    toWidth: found.width, toHeight: found.height)
        }
        current.compute(frame, area: found)
        let alignment = aligner.align(previous: previous, current: current, lastMovement: lastMovement,
                                      minimumOverlap: options.minimumOverlap,
                                      mismatchTolerance: options.mismatchTolerance)
        switch alignment.outcome {
        case .unchanged:
            statistics.framesUnchanged += 1
            swap(&previous, &current)
            return .unchanged
        case .unaligned:
            statistics.framesUnaligned += 1
            return .unaligned
        case .moved(let offset, let ambiguous):
            return scrolled(frame, area: found, by: offset, ambiguous: ambiguous,
                            fixedTop: alignment.fixedTop, fixedBottom: alignment.fixedBottom)
        }
    }

    /// The image so far. The stitcher is then empty and starts a new image with the next frame.
    public func finish() throws(ScreenshotError) -> StitchedImage {
        guard let store, let area else { throw .noFrames }
        let image = StitchedImage(store: store, firstRow: top, width: area.width, height: bottom + area.height - top,
                                  headerHeight: bandsKnown ? settledTop - top : 0,
                                  footerHeight: bandsKnown ? bottom + area.height - settledBottom : 0,
                                  isOpaque: opaque)
        self.store = nil
        self.area = nil
        (position, top, bottom, settledTop, settledBottom) = (0, 0, 0, 0, 0)
        (bandsKnown, opaque, stopped, lastMovement) = (false, true, false, 0)
        statistics = StitchStatistics()
        return image
    }

    private func start(_ frame: VideoFrame, area: PixelRect) -> StitchStep {
        guard area.height <= options.maximumHeight else { return stop() }
        self.area = area
        let store = RowStore(rowBytes: area.width * 4)
        self.store = store
        store.reserve(0..<area.height)
        copy(frame, area: area, rows: 0..<area.height, to: 0)
        previous.compute(frame, area: area)
        return .started
    }

    private func scrolled(_ frame: VideoFrame, area: PixelRect, by offset: Int, ambiguous: Bool,
                          fixedTop: Int, fixedBottom: Int) -> StitchStep {
        let n = area.height
        let at = position + offset
        guard max(bottom, at) + n - min(top, at) <= options.maximumHeight else { return stop() }
        if !bandsKnown {
            // The first movement tells which rows of the first frame were fixed bands.
            settledTop = position + fixedTop
            settledBottom = position + n - fixedBottom
            bandsKnown = true
        }
        if at > bottom {
            // New rows below: everything under the content already kept, then this frame's footer band.
            let from = min(n, max(settledBottom - at, fixedTop))
            copy(frame, area: area, rows: from..<n, to: at)
            settledBottom = max(settledBottom, at + n - fixedBottom)
            bottom = at
        }
        if at < top {
            // New rows above: this frame's header band, then everything over the content already kept.
            let to = max(0, min(settledTop - at, n - fixedBottom))
            copy(frame, area: area, rows: 0..<to, to: at)
            settledTop = min(settledTop, at + fixedTop)
            top = at
        }
        position = at
        lastMovement = offset
        swap(&previous, &current)
        statistics.framesScrolled += 1
        if ambiguous { statistics.ambiguousOffsets += 1 }
        return .scrolled(rows: offset, ambiguous: ambiguous)
    }

    private func stop() -> StitchStep {
        stopped = true
        statistics.reachedMaximumHeight = true
        return .reachedMaximumHeight
    }

    /// Converts `rows` of the area to RGBA into the image, frame row `r` at content row `origin + r`.
    private func copy(_ frame: VideoFrame, area: PixelRect, rows: Range<Int>, to origin: Int) {
        guard let store, !rows.isEmpty else { return }
        store.reserve((origin + rows.lowerBound)..<(origin + rows.upperBound))
        let base = UnsafeRawPointer(frame.storage.bytes).advanced(by: area.y * frame.stride + area.x * 4)
        let format = frame.format.pixelFormat
        for r in rows {
            let rowOpaque = RGBAConversion.convert(base.advanced(by: r * frame.stride), to: store.row(origin + r),
                                                   count: area.width, from: format)
            opaque = opaque && rowOpaque
        }
    }
}
