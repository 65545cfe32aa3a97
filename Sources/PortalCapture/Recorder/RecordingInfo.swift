import Foundation

/// What is known about a finished recording, stored beside it as JSON (`info.json`).
public struct RecordingInfo: Sendable, Codable, Equatable {
    public var appID: String
    /// The media file's name inside the app's store directory.
    public var fileName: String
    public var created: Date
    /// Seconds recorded, from the first frame to the stop, pauses left out: the file's length.
    public var duration: Double
    public var videoFormat: VideoFormat?
    public var audioFormat: AudioFormat?
    /// Frames the sinks were given (once finished, what the file holds: frames dropped on the way are not in it).
    public var videoFrames: Int
    /// Frames lost on the way: dropped by the delivery queue (sinks behind) or skipped by the stream (stale or
    /// corrupted). Frames left out to keep to an fps cap are not lost and not counted.
    public var droppedFrames: Int
    /// Set when the recording ended with an error (`interrupted`, `insufficientStorage`...).
    public var endedWithError: String?
    /// What the user should know although the recording worked (a microphone that sent nothing, say).
    public var warnings: [String]?
    /// True while the recording runs (the info is brought up to date every few seconds); nil once it was
    /// finalized. Still true with no recording running means its process died (a `kill -9`, a crash): the
    /// file plays up to about where it stopped, and `duration` is from the last update.
    public var inProgress: Bool?

    public init(appID: String, fileName: String, created: Date, duration: Double, videoFormat: VideoFormat?,
                audioFormat: AudioFormat?, videoFrames: Int, droppedFrames: Int, endedWithError: String? = nil) {
        self.appID = appID
        self.fileName = fileName
        self.created = created
        self.duration = duration
        self.videoFormat = videoFormat
        self.audioFormat = audioFormat
        self.videoFrames = videoFrames
        self.droppedFrames = droppedFrames
        self.endedWithError = endedWithError
    }
}
