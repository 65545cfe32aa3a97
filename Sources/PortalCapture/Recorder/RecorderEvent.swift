/// What a `ScreenRecorder` reports, in order, through its `events` stream (and its delegate).
public enum RecorderEvent: Sendable, Equatable {
    case availabilityChanged(Availability)
    case started
    /// Elapsed seconds, frames delivered, frames dropped, bytes written so far; at most every 500 ms.
    case progress(RecordingProgress)
    case paused
    case resumed
    /// The recording ended; `error` is nil for a normal stop (including max-duration), otherwise why it ended.
    case stopped(error: RecordingError?)
}

/// A progress report while recording.
public struct RecordingProgress: Sendable, Equatable {
    public var elapsed: Double
    public var frames: Int
    public var droppedFrames: Int
    public var bytes: Int64

    public init(elapsed: Double, frames: Int, droppedFrames: Int, bytes: Int64) {
        self.elapsed = elapsed
        self.frames = frames
        self.droppedFrames = droppedFrames
        self.bytes = bytes
    }
}
