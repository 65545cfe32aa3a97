import Synchronization
import PortalTestSupport

/// The `ScrollingPage` a page-mode stream shows, built once for its size (a page renders its whole image up
/// front) and again only when the stream is resized. The page has the stream options' header and footer and
/// keeps `page_height` rows in all (header + body + footer) unless the viewport needs more body.
final class PageCache: Sendable {
    private let options: StreamOptions
    private let cached = Mutex<ScrollingPage?>(nil)

    init(options: StreamOptions) {
        self.options = options
    }

    /// The page for a `width x height` viewport, nil when none fits (a resize left no rows between header
    /// and footer).
    func page(width: Int, height: Int) -> ScrollingPage? {
        cached.withLock { page in
            if let page, page.width == width, page.viewportHeight == height { return page }
            let visibleBody = height - options.header - options.footer
            let body = max(options.pageHeight - options.header - options.footer, visibleBody)
            page = try? ScrollingPage.generated(width: width, bodyHeight: body, viewportHeight: height,
                                                headerHeight: options.header, footerHeight: options.footer)
            return page
        }
    }

    /// The scroll offset of frame `frameNumber` (1, 2, ...): `scroll_step` rows per frame from the top (from
    /// the bottom when negative), stopping at the end.
    static func offset(frameNumber: UInt32, step: Int, maximum: Int) -> Int {
        let frames = min(Int(frameNumber == 0 ? 0 : frameNumber - 1), max(maximum, 0))
        let moved = min(frames * abs(step), maximum)
        return step >= 0 ? moved : maximum - moved
    }
}
