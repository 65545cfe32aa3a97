/// How much a `DeliveryQueue` may hold before it drops (see its drop policy).
public struct DeliveryOptions: Sendable, Hashable {
    /// Video frames that may wait; a new frame beyond this drops the oldest waiting one. The soft limit:
    /// reaching it is normal when a sink is slow. Default 8 (133 ms at 60 fps).
    public var videoCapacity: Int
    /// Audio chunks that may wait; a hard limit only reached when sinks have stalled for seconds, beyond which
    /// the oldest waiting chunk is dropped. Default 1024 (about 10 s of PipeWire's usual 10 ms quantum).
    public var audioCapacity: Int
    /// Cursor, masks and crop applied to each video frame on the delivery thread, after it leaves the queue
    /// (so dropped frames cost nothing) and before the sinks see it. Default: none.
    public var processing: FrameProcessingOptions
    /// Mixing of the audio chunks enqueued with a mix source (`DeliveryQueue.enqueue(_:mixInput:)`) into one
    /// stream, on the delivery thread, before the sinks see it. nil (the default): no mixing; such chunks are
    /// delivered as they are.
    public var audioMixing: AudioMixerOptions?
    /// How the delivery thread is scheduled. Default `.inherited`; `.batch` keeps its wake-ups from preempting
    /// PipeWire's data thread, and leaks into threads started from it (see `DeliveryThreadScheduling`).
    public var threadScheduling: DeliveryThreadScheduling
    /// Samples that may wait before the delivery thread is woken for them. Default 1: every sample wakes it.
    /// With 2, the thread wakes once for two frames (a wake-up per frame is most of a frame's cost: see
    /// bench/README.md, capture), and a lone sample waits at most `maximumHold`; the first sample after the
    /// thread has been idle longer than that wakes it at once.
    public var samplesPerWakeup: Int
    /// How long a sample may wait for the ones that share its wake-up (`samplesPerWakeup`). Default 50 ms.
    public var maximumHold: Duration

    public init(videoCapacity: Int = 8, audioCapacity: Int = 1024,
                processing: FrameProcessingOptions = FrameProcessingOptions(), audioMixing: AudioMixerOptions? = nil,
                threadScheduling: DeliveryThreadScheduling = .inherited, samplesPerWakeup: Int = 1,
                maximumHold: Duration = .milliseconds(50)) {
        self.videoCapacity = max(1, videoCapacity)
        self.audioCapacity = max(1, audioCapacity)
        self.processing = processing
        self.audioMixing = audioMixing
        self.threadScheduling = threadScheduling
        self.samplesPerWakeup = max(1, samplesPerWakeup)
        self.maximumHold = max(.milliseconds(1), maximumHold)
    }

    public func videoCapacity(_ count: Int) -> Self {
        var copy = self
        copy.videoCapacity = max(1, count)
        return copy
    }

    public func audioCapacity(_ count: Int) -> Self {
        var copy = self
        copy.audioCapacity = max(1, count)
        return copy
    }

    public func processing(_ options: FrameProcessingOptions) -> Self {
        var copy = self
        copy.processing = options
        return copy
    }

    public func audioMixing(_ options: AudioMixerOptions?) -> Self {
        var copy = self
        copy.audioMixing = options
        return copy
    }

    public func threadScheduling(_ scheduling: DeliveryThreadScheduling) -> Self {
        var copy = self
        copy.threadScheduling = scheduling
        return copy
    }

    public func samplesPerWakeup(_ count: Int, maximumHold: Duration = .milliseconds(50)) -> Self {
        var copy = self
        copy.samplesPerWakeup = max(1, count)
        copy.maximumHold = max(.milliseconds(1), maximumHold)
        return copy
    }
}
