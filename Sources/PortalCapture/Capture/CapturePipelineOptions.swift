/// How a `CapturePipeline` captures: what to read, how to transform it, and when to give up.
public struct CapturePipelineOptions: Sendable {
    /// The screen-cast node (from the portal's `Start` results) on the portal's PipeWire connection.
    public var video: PipeWireTarget
    /// The microphone on the default PipeWire daemon (`.default` = the default source); nil = no audio.
    /// The portal's connection only sees the screen-cast nodes, so audio always uses its own connection.
    public var microphone: PipeWireTarget?
    /// "System audio": what an output plays, read from its monitor (`AudioCaptureOptions.captureSinkMonitor`)
    /// on the default PipeWire daemon. `.default` = the default output, `.object(name)` = that sink; nil = none.
    public var systemAudio: PipeWireTarget?
    /// How the microphone and system audio become the one audio stream the sinks get, when both are recorded
    /// (mixed on the delivery thread: `DeliveryOptions.audioMixing`). Both streams are asked for its sample
    /// rate. With one of them alone, its chunks go to the sinks as PipeWire delivers them.
    public var audioMixing = AudioMixerOptions()
    /// Cursor compositing, masks and crop, applied on the delivery thread.
    public var processing = FrameProcessingOptions()
    /// At most this many frames per second on average (`FrameRateCap`); frames left out are counted as capped,
    /// not dropped. The sinks' video format then says this rate when the producer's is higher (or unknown).
    /// nil = no cap.
    public var fpsCap: Int?
    /// Ask PipeWire for this rate; the producer may still send less.
    public var preferredFrameRate = FrameRate(60)
    /// No video frame for this long ends the capture with `.noFrames` (compositors send nothing while the
    /// screen is still, so keep it generous); nil = never.
    public var noFrameTimeout: Duration?
    /// The delivery queue: 2 video frames by default (67 ms at 30 fps). Sinks normally take a frame at once (the
    /// encoder sink queues it for its own thread), so this queue only fills while the delivery thread waits for
    /// a CPU, and a waiting frame holds a PipeWire buffer or a copy (8.3 MB at 1080p) that a machine that busy drops
    /// anyway.
    ///
    /// With `samplesPerWakeup` above 1 (the delivery thread woken once for that many frames: about 14% less CPU
    /// per frame, bench/README.md, capture), frames may borrow that many buffers at once, and more buffers are
    /// asked of the producer (see `videoBufferCount`): 8.3 MB each at 1080p, which the recorder does not spend.
    public var delivery = DeliveryOptions(videoCapacity: 2)
    /// PipeWire buffers to ask the producer for (`VideoCaptureOptions.bufferCount`): 4, the fewest with which a
    /// frame can borrow its buffer instead of being copied (one lent, one being filled, one travelling, one
    /// being recycled; see `BufferLender`); each is mapped in this process (8.3 MB at 1080p).
    ///
    /// With `delivery.samplesPerWakeup` above 1, `2 * (samplesPerWakeup - 1)` more are asked for, so that a
    /// frame held for the next one still leaves the next one a buffer to borrow: one per held frame, and one
    /// because the held frames' buffers go back together while the stream recycles one per graph cycle.
    public var videoBufferCount = 4
    /// The thread that takes the video buffers and hands frames to the delivery queue
    /// (`VideoCaptureOptions.processThread`): PipeWire's data thread by default, which the hand-off never
    /// blocks; `.loop` costs one more thread wake-up per frame (bench/README.md, capture).
    public var videoProcessThread = VideoCaptureOptions.ProcessThread.data
    /// Frames borrow PipeWire's buffers instead of being copied (`VideoCaptureOptions.zeroCopy`).
    public var zeroCopy = true
    /// Whether the buffers' pages stay mapped in between frames (`VideoCaptureOptions.bufferMapping`):
    /// `.persistent` costs no CPU per frame; `.whileLent` keeps only the buffers frames hold in this process's
    /// RSS (the recorder's choice, see bench/README.md, recording-memory) for a page-fault cost per frame.
    public var videoBufferMapping = VideoCaptureOptions.BufferMapping.persistent
    /// What becomes of a frame that cannot borrow its buffer while the last frame handed on did (so a sink
    /// still holds that one: it is behind). `.copy` copies it (one storage is kept for that; a burst gets more,
    /// unmapped after use). `.drop` drops it at the source (counted with the drops: the sink was behind anyway),
    /// so at most one frame is alive and memory stays flat under load; after `maximumInARow` drops the next
    /// such frame is copied, so a sink that keeps a frame slows the capture down but cannot freeze it.
    /// Streams whose buffers cannot be borrowed (not memfd) are always copied.
    public var heldBufferFallback = HeldBufferFallback.copy
    /// Request SPA cursor metadata from the producer (the portal's cursor mode `metadata`).
    public var cursorMetadata = true

    public init(video: PipeWireTarget) {
        self.video = video
    }

    /// See `heldBufferFallback`.
    public enum HeldBufferFallback: Sendable, Equatable {
        case copy
        case drop(maximumInARow: Int)
    }
}
