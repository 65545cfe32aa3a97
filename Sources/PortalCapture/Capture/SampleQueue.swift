/// The delivery queue's storage and drop policy, without threads (see `DeliveryQueue`).
///
/// Video and audio wait in two bounded FIFOs; a ticket taken at `push` restores their interleaving at `pop`,
/// so samples leave in the order they came. When a video frame arrives and `videoCapacity` frames are
/// already queued, the oldest queued frame is dropped; audio gets the same treatment against its own, larger
/// `audioCapacity`. Every operation is O(1) and allocates nothing. An audio chunk may carry the source it comes
/// from in a mix (`mixInput`), for the delivery thread's `AudioMixer`.
struct SampleQueue {
    /// A queued sample. A struct, not a tuple: the delivery thread's steps copy it through specialized code,
    /// where a tuple payload went through the runtime's generic tuple witnesses (bench/README.md, capture).
    struct Entry {
        fileprivate var ticket: UInt64
        var sample: CaptureSample
        var mixInput: Int?
    }

    private var video: RingBuffer<Entry>
    private var audio: RingBuffer<Entry>
    private var nextTicket: UInt64 = 0
    private(set) var statistics = DeliveryStatistics()

    init(videoCapacity: Int, audioCapacity: Int) {
        video = RingBuffer(capacity: videoCapacity)
        audio = RingBuffer(capacity: audioCapacity)
    }

    var count: Int { video.count + audio.count }

    /// Queues `sample` (from mix source `mixInput`, if any); returns the sample dropped to make room, if any
    /// (release it outside any lock).
    mutating func push(_ sample: consuming CaptureSample, mixInput: Int? = nil) -> CaptureSample? {
        var dropped: CaptureSample?
        let isVideo = if case .video = sample { true } else { false }
        let entry = Entry(ticket: nextTicket, sample: sample, mixInput: mixInput)   // moved in, not copied
        nextTicket &+= 1
        statistics.enqueued += 1
        if isVideo {
            if video.isFull {
                dropped = video.popFirst()?.sample
                statistics.droppedVideo += 1
            }
            video.append(entry)
        } else {
            if audio.isFull {
                dropped = audio.popFirst()?.sample
                statistics.droppedAudio += 1
            }
            audio.append(entry)
        }
        statistics.highWaterMark = max(statistics.highWaterMark, count)
        return dropped
    }

    /// The oldest queued sample, counted as delivered.
    mutating func pop() -> CaptureSample? {
        popEntry()?.sample
    }

    /// The oldest queued sample and the mix source it comes from, counted as delivered.
    mutating func popEntry() -> Entry? {
        // The tickets are read in place: copying the entries out to compare them copied two frames.
        let fromVideo: Bool
        if let videoTicket = video.first({ $0.ticket }) {
            fromVideo = audio.first({ $0.ticket }).map { videoTicket < $0 } ?? true
        } else if audio.isEmpty {
            return nil
        } else {
            fromVideo = false
        }
        statistics.delivered += 1
        return fromVideo ? video.popFirst() : audio.popFirst()
    }

    /// The mixer has left out `frames` sample frames in all (they came too late): kept in the statistics.
    mutating func noteLateAudio(frames: Int) {
        statistics.lateAudioFrames = frames
    }

    /// A popped frame was withheld by the processor: counted as rejected instead of delivered.
    mutating func noteRejected() {
        statistics.delivered -= 1
        statistics.rejectedVideo += 1
    }

    /// Throws every queued sample away, counted as discarded.
    mutating func discardAll() {
        statistics.discarded += count
        while video.popFirst() != nil {}
        while audio.popFirst() != nil {}
    }
}
