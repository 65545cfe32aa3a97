import Foundation

/// Everything a `ScreenRecorder` depends on, injected (no globals); the defaults are the system's.
public struct ScreenRecorderConfiguration: Sendable {
    /// Consent and the screen-cast stream.
    public var provider: any ScreenCastProvider
    /// Where sinks come from (`SinkRegistry.standard()` from the Plugins module has the built-in ones).
    public var sinks: SinkRegistry
    /// The admin policy's files.
    public var policy = PolicyLocations()
    /// Where the kept recording lives.
    public var store = RecordingStore()
    /// Who is recording, for the policy; nil = the current user.
    public var subject: PolicySubject?
    /// The PipeWire daemon for the microphone (nil = the default, `$PIPEWIRE_REMOTE` or `pipewire-0`).
    public var pipewireRemote: String?
    /// Give up when no frame arrives this long after the portal granted the cast.
    public var firstFrameTimeout: Duration = .seconds(10)
    /// A recording whose stream sends nothing this long ends as interrupted; nil = never (compositors send
    /// nothing while the screen is still).
    public var noFrameTimeout: Duration?
    /// Refuse to start with less free space than this where the recording is written.
    public var minimumFreeBytes: Int64 = 64 << 20
    /// Progress events at most this often.
    public var progressInterval: Duration = .milliseconds(500)
    /// Whether the screen cast's PipeWire buffers stay mapped in between frames
    /// (`CapturePipelineOptions.videoBufferMapping`). `.whileLent`: only the buffer the frames hold counts in
    /// the recorder's RSS, for about 0.6 ms of page faults per 1080p frame (bench/README.md, recording-memory).
    public var videoBufferMapping = VideoCaptureOptions.BufferMapping.whileLent
    /// A frame arriving while the sink still holds the previous one (`CapturePipelineOptions.heldBufferFallback`).
    public var heldBufferFallback = CapturePipelineOptions.HeldBufferFallback.drop(maximumInARow: 10)
    /// How the recording's delivery thread is scheduled (`DeliveryOptions.threadScheduling`). `.batch` keeps its
    /// wake-ups from preempting PipeWire's data thread, and is inherited by threads started from it, the
    /// process's libdispatch and Swift concurrency workers included: for a process that records and little
    /// else (the `pwrecord` command line chooses it).
    public var deliveryThreadScheduling = DeliveryThreadScheduling.inherited

    /// Where the delegate is called and `events` are yielded from, in order; nil: a private serial queue.
    /// `DispatchQueue.main` suits a delegate isolated to the main actor (a `@MainActor` class conforming with
    /// `@preconcurrency ScreenRecorderDelegate`).
    public var eventQueue: DispatchQueue?

    public init(provider: any ScreenCastProvider, sinks: SinkRegistry) {
        self.provider = provider
        self.sinks = sinks
    }
}
