import Glibc
import PortalCapture

/// Everything that can go wrong in the test portal backend (`pwrecord-test-portal`). Each case says what
/// happened and how to fix it. Errors in a control call reach the test as a D-Bus error reply
/// (``dbusError``), never as a crash.
enum BackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A command-line argument is missing, unknown or out of range.
    case usage(String)
    /// A key of `org.pwrecord.TestPortal.SetStreamOptions` is unknown, has the wrong type or a bad value.
    case invalidOption(key: String, reason: String)
    /// `SetNextResponse` / `LastOptions` named a method this backend does not implement.
    case unknownMethod(String)
    /// `SetNextResponse` gave a response code other than 0, 1, 2 or 3.
    case invalidResponse(UInt32)
    /// Writing a screenshot file failed.
    case screenshotFailed(path: String, errno: Int32)
    /// Encoding a screenshot as PNG failed.
    case screenshotEncoding(ScreenshotError)
    /// The D-Bus layer failed (connecting, exporting, owning the name).
    case bus(DBusError)
    /// The PipeWire layer failed (connecting, creating a node, resizing).
    case pipeWire(PipeWireError)

    var description: String {
        switch self {
        case .usage(let text):
            return "\(text) (see pwrecord-test-portal --help)"
        case .invalidOption(let key, let reason):
            return "stream option '\(key)': \(reason); valid keys: \(StreamOptions.keys.joined(separator: ", "))"
        case .unknownMethod(let name):
            return "unknown method '\(name)'; use one of \(PortalMethod.allNames.joined(separator: ", ")) or '*'"
        case .invalidResponse(let code):
            return "response \(code) is not one of 0 (normal), 1 (declined), 2 (failed), 3 (never answer)"
        case .screenshotFailed(let path, let errno):
            return "cannot write the screenshot \(path): \(String(cString: strerror(errno))) (errno \(errno)); "
                + "check that PWRECORD_DESKTOP_DIR or TMPDIR is writable"
        case .screenshotEncoding(let error):
            return "cannot encode the screenshot: \(error)"
        case .bus(let error):
            return "D-Bus: \(error)"
        case .pipeWire(let error):
            return "PipeWire: \(error)"
        }
    }

    /// The error reply a control call answers with: bad arguments are
    /// `org.freedesktop.DBus.Error.InvalidArgs`, everything else `org.freedesktop.DBus.Error.Failed`.
    var dbusError: DBusError {
        switch self {
        case .usage, .invalidOption, .unknownMethod, .invalidResponse:
            return .remote(name: "org.freedesktop.DBus.Error.InvalidArgs", message: description)
        case .bus(let error):
            return error
        default:
            return .remote(name: "org.freedesktop.DBus.Error.Failed", message: description)
        }
    }
}
