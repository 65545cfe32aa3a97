#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why capture ended on its own (not by the user stopping it): what the recorder reports upward, once.
///
/// The PipeWire streams' own events map into it: a stream state change to `PW_STREAM_STATE_UNCONNECTED` or
/// `PW_STREAM_STATE_ERROR`, the core's `error` event (`pw_core_events.error`, e.g. `-EPIPE` when the PipeWire
/// daemon died); the `StallWatchdog` gives `noFrames`; the portal's `org.freedesktop.portal.Session.Closed`
/// signal, or the session vanishing, gives `sessionClosed`.
public enum CaptureEnd: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which stream a cause concerns.
    public enum Stream: String, Sendable, Hashable {
        case video
        case audio
    }

    /// The stream went to `PW_STREAM_STATE_UNCONNECTED`: its node went away (the shared window closed, the
    /// monitor was unplugged, the compositor stopped the cast).
    case streamUnconnected(Stream)
    /// The stream went to `PW_STREAM_STATE_ERROR` with PipeWire's message.
    case streamError(Stream, message: String)
    /// The core connection reported an error (`pw_core_events.error`): `errno` is positive (PipeWire passes
    /// `-errno`), e.g. 32 (`EPIPE`) when the daemon died.
    case coreError(errno: Int32, message: String)
    /// No video frame arrived for `timeout` (`StallWatchdog`).
    case noFrames(for: Duration)
    /// The portal closed the session (`org.freedesktop.portal.Session.Closed`, or the session or the portal
    /// left the bus): the user stopped sharing from the desktop, or the compositor ended it.
    case sessionClosed

    /// A core error from PipeWire's `res` argument, which is a negative errno (its sign is normalised).
    public static func coreError(result: Int32, message: String) -> CaptureEnd {
        .coreError(errno: result == Int32.min ? Int32.max : abs(result), message: message)
    }

    /// Whether PipeWire failed (a recorder reports `failed`), as opposed to the capture being interrupted
    /// because the source, the session or the frames went away (`interrupted`).
    public var isFailure: Bool {
        switch self {
        case .streamError, .coreError: true
        case .streamUnconnected, .noFrames, .sessionClosed: false
        }
    }

    public var description: String {
        switch self {
        case .streamUnconnected(let stream):
            "the \(stream.rawValue) stream was disconnected (the shared source went away); start a new recording"
        case .streamError(let stream, let message):
            "the \(stream.rawValue) stream failed: \(message)"
        case .coreError(let errno, let message):
            "PipeWire reported error \(errno) (\(Self.errnoName(errno))): \(message)"
                + (errno == EPIPE ? "; the PipeWire daemon went away, check `systemctl --user status pipewire`" : "")
        case .noFrames(let timeout):
            "no video frames for \(Self.seconds(timeout)); the source may be frozen or hidden, or the compositor "
                + "stopped sending"
        case .sessionClosed:
            "the screen-cast session was closed by the desktop (sharing was stopped)"
        }
    }

    private static func errnoName(_ errno: Int32) -> String {
        guard let text = strerror(errno) else { return "unknown" }
        return String(cString: text)
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
