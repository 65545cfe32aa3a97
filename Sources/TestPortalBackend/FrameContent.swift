import PortalTestSupport

/// What a stream (or a screenshot) shows on a given frame: the stream options' content plus, in cursor mode
/// "embedded", the test cursor drawn in.
struct FrameContent: Sendable {
    var options: StreamOptions
    var drawsCursor: Bool

    /// Paints frame `frameNumber` into `pixels` (`stride * format.height` bytes in `format`'s byte order).
    /// `format` is what was negotiated, which after `ResizeStreams` differs from the options' size.
    func render(into pixels: UnsafeMutableRawPointer, stride: Int, format: VideoFormat, frameNumber: UInt32) {
        switch options.content {
        case .pattern, .page:
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
