/// How the lower layers' errors become the recorder's ReplayKit-like codes.
extension RecordingError {
    /// A sink's failure: a full disk and unwritable files keep their meaning; the rest is `failed`.
    init(_ error: SinkError) {
        switch error {
        case .insufficientStorage(let path): self = .insufficientStorage(path: path)
        case .filePermissions(let path, let reason): self = .filePermissions(path: path, reason: reason)
        case .invalidOption, .unknownSink: self = .invalidParameter(error.description)
        case .unsupported: self = .unsupported(error.description)
        case .notAllowed: self = .disabled(reason: error.description)   // our policy refused the sink
        case .pluginRejected, .abandoned, .failed: self = .failed(reason: error.description)
        }
    }

    /// Capture ending on its own: the source, the session or PipeWire went away (`interrupted`), or a
    /// stream failed (`failed`).
    init(_ end: CaptureEnd) {
        switch end {
        case .streamError: self = .failed(reason: end.description)
        case .streamUnconnected, .coreError, .noFrames, .sessionClosed: self = .interrupted(reason: end.description)
        }
    }

    /// The portal's answer: the user's "no" is `userDeclined`, never a failure; the desktop's refusal
    /// (`NotAllowed`, its permissions) is `notPermitted` with the portal's text, not our policy's `disabled`.
    public init(_ error: PortalError) {
        switch error {
        case .cancelled: self = .userDeclined
        case .portalNotFound, .portalFailedToStart, .interfaceMissing, .portalVanished, .busUnavailable:
            self = .portalUnavailable(reason: error.description)
        case .requiresVersion, .unsupported: self = .unsupported(error.description)
        case .invalidArgument: self = .invalidParameter(error.description)
        case .notAllowed(let message): self = .notPermitted(reason: message)
        case .ended, .timedOut, .sessionClosed, .malformedReply, .fileUnreadable, .dbus:
            self = .failedToStart(reason: error.description)
        }
    }
}
