import PortalTestSupport

/// What a stream (or a screenshot) shows on a given frame: the stream options' content plus, in cursor mode
/// "embedded", the test cursor drawn in.
struct FrameContent: Sendable {
    let options: StreamOptions
    let drawsCursor: Bool
    private let pages: PageCache

    init(options: StreamOptions, drawsCursor: Bool) {
        self.options = options
        self.drawsCursor = drawsCursor
        pages = PageCache(options: options)
        if options.content == .page { _ = pages.page(width: options.width, height: options.height) }
    }

    /// Paints frame `frameNumber` into `pixels` (`stride * format.height` bytes in `format`'s byte order).
    /// `format` is what was negotiated, which after `ResizeStreams` differs from the options' size. In page
    /// mode a size no page fits (header and footer fill it) shows the test pattern instead.
    func render(into pixels: UnsafeMutableRawPointer, stride: Int, format: VideoFormat, frameNumber: UInt32) {
        if options.content == .page, let page = pages.page(width: format.width, height: format.height) {
            let offset = PageCache.offset(frameNumber: frameNumber, step: options.scrollStep, maximum: page.maximumOffset)
            page.render(offset: offset, into: pixels, stride: stride, pixelFormat: format.pixelFormat)
        } else {
            TestPattern.render(into: pixels, stride: stride, format: format, frameNumber: frameNumber)
        }
        if drawsCursor {
            CursorPainter.draw(into: pixels, stride: stride, format: format, frameNumber: frameNumber)
        }
    }

    /// As a renderer for `VideoProducerStream`.
    var renderer: VideoFrameRenderer {
        let content = self
        return { pixels, stride, format, frameNumber in
            content.render(into: pixels, stride: stride, format: format, frameNumber: frameNumber)
        }
    }
}
