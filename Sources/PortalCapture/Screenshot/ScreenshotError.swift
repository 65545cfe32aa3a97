#if canImport(Glibc)
import Glibc
#endif

/// Why a long screenshot could not be stitched or saved. Each case says what happened and, where a user can
/// act, how to fix it.
public enum ScreenshotError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `ScrollStitcher.finish()` was called before any frame arrived.
    case noFrames
    /// The region of interest does not lie inside the frame.
    case regionOutsideFrame(region: PixelRect, frameWidth: Int, frameHeight: Int)
    /// The region (or the whole frame) is too small to stitch: it needs at least `minimumHeight` rows and one column.
    case regionTooSmall(width: Int, height: Int, minimumHeight: Int)
    /// The stitched area changed size mid-capture (a resized window, a new crop).
    case frameSizeChanged(fromWidth: Int, fromHeight: Int, toWidth: Int, toHeight: Int)
    /// Pixels handed to `StitchedImage` do not match its size.
    case invalidImage(reason: String)
    /// A writer option with a value it cannot use (a compression level outside 0...9, a non-positive
    /// resolution or page height).
    case invalidOption(name: String, reason: String)
    /// The image is larger than the format can hold (PNG: 2^31-1 pixels a side; PDF pages: see docs/screenshots.md).
    case imageTooLarge(width: Int, height: Int, format: String)
    /// libpng refused to encode (`png_error`), with its message.
    case encodingFailed(library: String, message: String)
    /// A file operation failed: `operation` is the C call (`mkstemp`, `write`, `fsync`, `rename`), `errno` its code.
    case fileWriteFailed(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .noFrames:
            "no frames were captured; keep the capture running while the content scrolls"
        case .regionOutsideFrame(let region, let w, let h):
            "region \(region) lies outside the \(w)x\(h) frame; choose a region inside the captured area"
        case .regionTooSmall(let w, let h, let minimum):
            "the stitched area \(w)x\(h) is too small; it needs at least \(minimum) rows and 1 column"
        case .frameSizeChanged(let fw, let fh, let tw, let th):
            "the captured area changed from \(fw)x\(fh) to \(tw)x\(th) while stitching; keep the window size fixed and start again"
        case .invalidImage(let reason):
            "invalid image: \(reason)"
        case .invalidOption(let name, let reason):
            "option \(name): \(reason)"
        case .imageTooLarge(let w, let h, let format):
            "a \(w)x\(h) image is too large for \(format); lower the maximum height"
        case .encodingFailed(let library, let message):
            "\(library) failed: \(message)"
        case .fileWriteFailed(let path, let operation, let code):
            "cannot write \(path): \(operation): \(String(cString: strerror(code)))" + Self.hint(errno: code)
        }
    }

    private static func hint(errno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "; free some space or choose another directory"
        case EACCES, EPERM, EROFS: "; choose a writable directory"
        case ENOENT, ENOTDIR: "; create the directory first"
        default: ""
        }
    }
}
