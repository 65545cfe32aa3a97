/// Counts kept by a `DeliveryQueue`. Once it has ended,
/// `enqueued == delivered + rejectedVideo + droppedVideo + droppedAudio + discarded`.
public struct DeliveryStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Samples accepted by `enqueue`.
    public var enqueued = 0
    /// Samples taken off the queue and handed to the sinks.
    public var delivered = 0
    /// Video frames taken off the queue that the processing options could not be applied to (withheld).
    public var rejectedVideo = 0
    /// Video frames dropped because the queue already held `videoCapacity` frames (oldest first).
    public var droppedVideo = 0
    /// Audio chunks dropped because the queue already held `audioCapacity` chunks (oldest first).
    public var droppedAudio = 0
    /// Samples thrown away unseen by `cancel()`, or by ending before `start`.
    public var discarded = 0
    /// The most samples (video and audio) queued at once.
    public var highWaterMark = 0
    /// With audio mixing: sample frames a source delivered after the mix had gone past their time (it was
    /// more than `AudioMixerOptions.maximumWait` behind), left out of the mix.
    public var lateAudioFrames = 0
    /// Times a sample's arrival woke the delivery thread: one per sample by default, about one per
    /// `DeliveryOptions.samplesPerWakeup` samples when the thread keeps up.
    public var wakeups = 0

    public init() {}

    public var dropped: Int { droppedVideo + droppedAudio }

    public var description: String {
        "\(enqueued) enqueued, \(delivered) delivered, \(droppedVideo) video and \(droppedAudio) audio dropped, "
            + "\(rejectedVideo) rejected, \(discarded) discarded, at most \(highWaterMark) queued"
            + (lateAudioFrames > 0 ? ", \(lateAudioFrames) late audio frames left out of the mix" : "")
    }
}
