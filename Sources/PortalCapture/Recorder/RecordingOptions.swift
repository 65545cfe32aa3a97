import Foundation

/// What to record, as a value built fluently:
/// `RecordingOptions().source(.window).microphone(true).systemAudio(true).fps(60)`.
public struct RecordingOptions: Sendable, Equatable {
    public enum FrameRateMode: String, Sendable, Equatable {
        /// Duplicate or drop frames to exactly `fps`.
        case constant
        /// Keep PipeWire's timestamps; `fps` is a cap.
        case variable
    }

    /// Which kinds of source the portal dialog offers.
    public var sources: SourceTypes = .monitor
    /// Let the user pick more than one source (only the first stream is recorded).
    public var multiple = false
    public var cursor: CursorModes = .embedded
    /// Frame rate cap (and the rate for `.constant`).
    public var fps = 30
    public var frameRateMode: FrameRateMode = .variable
    /// Whether to record the microphone. Left unset, a `ScreenRecorder` follows its `isMicrophoneEnabled`;
    /// set (to either value) it overrides that for this recording.
    public var microphone: Bool {
        get { microphoneChoice ?? false }
        set { microphoneChoice = newValue }
    }
    /// What the options say about the microphone, nil when they say nothing.
    public internal(set) var microphoneChoice: Bool?
    /// A PipeWire node name for the microphone; nil means the default source.
    public var microphoneNode: String?
    /// Record "system audio" too: what the desktop plays, read from the default output's monitor (ReplayKit's
    /// app audio, for the whole desktop). With the microphone as well, the two are mixed into one audio track.
    public var systemAudio = false
    /// A PipeWire sink's node name whose monitor is recorded; nil means the default output.
    public var systemAudioNode: String?
    /// Record only this region of the stream.
    public var crop: PixelRect?
    /// Regions filled with black in every frame (drawn before cropping, in stream coordinates).
    public var masks: [PixelRect] = []
    /// Stop by itself after this many seconds (the policy's max-duration still applies when shorter).
    public var maxDuration: Double?
    /// Extra sinks beside the recording's own encoder file (which `startRecording` always writes), each a
    /// spec with an output of its own: `raw:output=frames.y4m`, `frames:output=shots,every=30`, a plugin id.
    public var sinks: [String] = []
    /// The container (the recording's file extension): mkv, mp4 or webm. Left unset, it follows `output`'s
    /// extension when that names one, else mkv.
    public var container: String {
        get { containerChoice ?? output.flatMap { Self.container(of: $0) } ?? "mkv" }
        set { containerChoice = newValue }
    }
    private var containerChoice: String?
    /// The video codec; left unset, h264, or vp9 in webm (which takes only VP9 and AV1).
    public var codec: String {
        get { codecChoice ?? (container == "webm" ? "vp9" : "h264") }
        set { codecChoice = newValue }
    }
    private var codecChoice: String?
    /// Where the recording goes instead of the app's kept recording (written beside it, placed there when it
    /// ends, however it is stopped): it is checked (policy output dirs, writable, not existing unless
    /// `overwrite`) before the user is asked anything.
    public var output: URL?
    public var overwrite = false

    public init() {}

    public func source(_ value: SourceTypes) -> Self { var c = self; c.sources = value; return c }
    public func multiple(_ value: Bool) -> Self { var c = self; c.multiple = value; return c }
    public func cursor(_ value: CursorModes) -> Self { var c = self; c.cursor = value; return c }
    public func fps(_ value: Int) -> Self { var c = self; c.fps = value; return c }
    public func frameRateMode(_ value: FrameRateMode) -> Self { var c = self; c.frameRateMode = value; return c }
    public func microphone(_ value: Bool, node: String? = nil) -> Self {
        var c = self; c.microphone = value; c.microphoneNode = node; return c
    }
    public func systemAudio(_ value: Bool, node: String? = nil) -> Self {
        var c = self; c.systemAudio = value; c.systemAudioNode = node; return c
    }
    public func crop(_ value: PixelRect?) -> Self { var c = self; c.crop = value; return c }
    public func masks(_ value: [PixelRect]) -> Self { var c = self; c.masks = value; return c }
    public func maxDuration(_ value: Double?) -> Self { var c = self; c.maxDuration = value; return c }
    public func sinks(_ value: [String]) -> Self { var c = self; c.sinks = value; return c }
    public func container(_ value: String) -> Self { var c = self; c.container = value; return c }
    public func codec(_ value: String) -> Self { var c = self; c.codec = value; return c }
    public func output(_ value: URL?, overwrite: Bool = false) -> Self {
        var c = self; c.output = value; c.overwrite = overwrite; return c
    }

    static let containers = ["mkv", "mp4", "webm"]

    /// The container `url`'s extension names, if any.
    static func container(of url: URL) -> String? {
        let ext = url.pathExtension.lowercased()
        return containers.contains(ext) ? ext : nil
    }

    /// The longest `maxDuration` accepted: a week.
    public static let longestDuration = 7 * 24 * 3600.0

    /// Checks what can be checked without any I/O.
    public func validate() throws(RecordingError) {
        guard (1...240).contains(fps) else { throw .invalidParameter("fps \(fps) (use 1 to 240)") }
        if sources.isEmpty { throw .invalidParameter("no source type (use monitor and/or window)") }
        if let crop, crop.isEmpty || crop.x < 0 || crop.y < 0 { throw .invalidParameter("crop \(crop) (needs x,y >= 0 and a positive size)") }
        if let crop, crop.width < 2 || crop.height < 2 {
            throw .invalidParameter("crop \(crop) is too small to encode (at least 2x2 pixels)")
        }
        if let bad = masks.first(where: { $0.isEmpty }) { throw .invalidParameter("mask \(bad) (needs a positive size)") }
        if let d = maxDuration, !(d > 0 && d <= Self.longestDuration) {
            throw .invalidParameter("duration \(d) s (must be positive and at most a week, \(Int(Self.longestDuration)) s)")
        }
        guard Self.containers.contains(container) else { throw .invalidParameter("container '\(container)' (use mkv, mp4 or webm)") }
        if let output, let named = Self.container(of: output), named != container {
            throw .invalidParameter("output \(output.lastPathComponent) names the \(named) container, but the recording is \(container) "
                + "(name the file .\(container), or leave the container unset to follow the extension)")
        }
        if [CursorModes.hidden, .embedded, .metadata].allSatisfy({ $0 != cursor }) {
            throw .invalidParameter("cursor mode \(cursor) (choose exactly one of hidden, embedded, metadata)")
        }
    }
}
