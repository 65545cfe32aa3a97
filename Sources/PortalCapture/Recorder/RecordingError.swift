/// Why a recording could not start or did not finish, with ReplayKit-like codes (`RPRecordingErrorCode`).
/// Each description tells the user what to do.
public enum RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The user declined the portal's consent dialog. Not a failure: nothing was created.
    case userDeclined
    /// The recording policy does not allow it; `reason` says which rule (`file:line: ...`).
    case disabled(reason: String)
    /// The desktop refused: its permissions (privacy settings, or a Flatpak app's portal permissions) do not let
    /// this app capture the screen. The portal answered `org.freedesktop.portal.Error.NotAllowed` (or
    /// `org.freedesktop.DBus.Error.AccessDenied`); `reason` is its text. Not the recording policy (that is
    /// `disabled`), and not the user's "no" in the dialog (that is `userDeclined`).
    case notPermitted(reason: String)
    /// The portal or PipeWire could not start the capture.
    case failedToStart(reason: String)
    /// The recording failed while running; what was recorded to a file so far is kept (a capture keeps nothing).
    case failed(reason: String)
    /// The session was closed or PipeWire went away mid-recording; what was recorded to a file so far is kept
    /// (a capture keeps nothing).
    case interrupted(reason: String)
    /// The disk is full, or too full to start (less than `ScreenRecorderConfiguration.minimumFreeBytes`);
    /// what was recorded until then is kept.
    case insufficientStorage(path: String)
    /// The output cannot be written.
    case filePermissions(path: String, reason: String)
    case attemptToStartInRecordingState
    case attemptToStopNonRecording
    /// A bad option (a crop outside the screen, an fps of 0, an unknown codec...).
    case invalidParameter(String)
    /// No screen-cast portal on the session bus, or no PipeWire.
    case portalUnavailable(reason: String)
    /// The running portal or this build cannot do what was asked.
    case unsupported(String)

    public var description: String {
        switch self {
        case .userDeclined:
            "recording was declined in the desktop's dialog; try again and choose a screen or window to share"
        case .disabled(let reason):
            // A policy reason may already say whom to ask.
            "recording is disabled by policy: \(reason)"
                + (reason.hasSuffix("ask your administrator") ? "" : "; ask your administrator")
                + " (see 'pwrecord policy explain')"
        case .notPermitted(let reason):
            "the desktop refused screen capture for this application\(reason.isEmpty ? "" : ": \(reason)"); allow "
                + "screen capture for it in the desktop's privacy settings (for a Flatpak app, its portal "
                + "permissions) and try again"
        case .failedToStart(let reason):
            "recording could not start: \(reason)"
        case .failed(let reason):
            "recording failed: \(reason); what was recorded to a file until then has been kept"
        case .interrupted(let reason):
            "recording was interrupted: \(reason); what was recorded to a file until then has been kept"
        case .insufficientStorage(let path):
            "not enough space on the device for \(path); free some space or record to another place (a recording that "
                + "ran out of space keeps what it recorded until then)"
        case .filePermissions(let path, let reason):
            "cannot write \(path): \(reason); choose a writable output path"
        case .attemptToStartInRecordingState:
            "a recording is already running (this app id's, perhaps in another process); stop it first"
        case .attemptToStopNonRecording:
            "no recording of that kind is running (stopRecording ends a recording, stopCapture a capture)"
        case .invalidParameter(let what):
            "invalid parameter: \(what)"
        case .portalUnavailable(let reason):
            "screen recording is unavailable: \(reason)"
        case .unsupported(let what):
            "not supported: \(what)"
        }
    }
}

extension RecordingError {
    /// The error for a recording of which nothing was kept: a `failed` ("what was recorded to a file until
    /// then has been kept") becomes `failedToStart` with the same reason (a sink that failed in its create or
    /// open means the recording never started); other errors stay as they are.
    var nothingRecorded: RecordingError {
        if case .failed(let reason) = self { return .failedToStart(reason: reason) }
        return self
    }

    /// The same error with `detail` added to its reason (e.g. "; the recording is in FILE"); errors without a
    /// reason of their own stay as they are.
    func adding(_ detail: String) -> RecordingError {
        switch self {
        case .disabled(let reason): .disabled(reason: reason + detail)
        case .notPermitted(let reason): .notPermitted(reason: reason + detail)
        case .failedToStart(let reason): .failedToStart(reason: reason + detail)
        case .failed(let reason): .failed(reason: reason + detail)
        case .interrupted(let reason): .interrupted(reason: reason + detail)
        case .filePermissions(let path, let reason): .filePermissions(path: path, reason: reason + detail)
        case .portalUnavailable(let reason): .portalUnavailable(reason: reason + detail)
        case .invalidParameter(let what): .invalidParameter(what + detail)
        case .unsupported(let what): .unsupported(what + detail)
        case .userDeclined, .insufficientStorage, .attemptToStartInRecordingState, .attemptToStopNonRecording: self
        }
    }
}
