/// ReplayKit's `RPScreenRecorderDelegate`. Every method has an empty default, so implement only what you need.
///
/// Threading: all methods are called on the recorder's serial event queue (never on PipeWire's data thread
/// and never concurrently), in the same order as the `events` stream yields. That queue is private unless
/// `ScreenRecorderConfiguration.eventQueue` names one: with `.main`, a `@MainActor` class can conform with
/// `@preconcurrency ScreenRecorderDelegate` (its methods then run on the main actor, as the conformance
/// checks at run time).
public protocol ScreenRecorderDelegate: AnyObject, Sendable {
    /// Availability changed (policy window, policy file edited, portal or PipeWire appeared or went away).
    func screenRecorderDidChangeAvailability(_ recorder: ScreenRecorder, availability: Availability)
    func screenRecorderDidStartRecording(_ recorder: ScreenRecorder)
    func screenRecorder(_ recorder: ScreenRecorder, progress: RecordingProgress)
    /// The recording ended, normally (`error == nil`) or not. Called exactly once per started recording.
    func screenRecorder(_ recorder: ScreenRecorder, didStopRecordingWith error: RecordingError?)
    /// `pauseRecording()` paused the recording (nothing is recorded until it resumes).
    func screenRecorderDidPauseRecording(_ recorder: ScreenRecorder)
    /// `resumeRecording()` resumed it.
    func screenRecorderDidResumeRecording(_ recorder: ScreenRecorder)
}

extension ScreenRecorderDelegate {
    public func screenRecorderDidChangeAvailability(_ recorder: ScreenRecorder, availability: Availability) {}
    public func screenRecorderDidStartRecording(_ recorder: ScreenRecorder) {}
    public func screenRecorder(_ recorder: ScreenRecorder, progress: RecordingProgress) {}
    public func screenRecorder(_ recorder: ScreenRecorder, didStopRecordingWith error: RecordingError?) {}
    public func screenRecorderDidPauseRecording(_ recorder: ScreenRecorder) {}
    public func screenRecorderDidResumeRecording(_ recorder: ScreenRecorder) {}
}
