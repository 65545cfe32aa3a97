/// The delivery queue's storage and drop policy, without threads (see `DeliveryQueue`).
///
/// Video and audio wait in two bounded FIFOs; a ticket taken at `push` restores their interleaving at `pop`,
/// so samples leave in the order they came. When a video frame arrives and `videoCapacity` frames are
/// already queued, the oldest queued frame is dropped; audio gets the same treatment against its own, larger
/// `audioCapacity`. Every operation is O(1) and allocates nothing. An audio chunk may carry the source it comes
/// from in a mix (`mixInput`), for the delivery thread's `AudioMixer`.
///
/// Typed all the way: each FIFO holds its own kind (`VideoEntry`, `AudioEntry`), and the hot path
/// (`push(video:)`, `nextKind`, `popVideo()`) never wraps a frame in a `CaptureSample`. Entries that held a
/// `CaptureSample` made the whole capture path about 5% dearer per 1080p60 frame on the test desktop
/// (bench/README.md, capture): a multi-payload enum inside an optional inside an array slot is copied and
/// destroyed through the runtime's generic value witnesses, whose code and type metadata a thread waking every
/// 16 ms finds cold.
/// `push(_:mixInput:)` and `pop()` take and give `CaptureSample`s, for callers off that path.
struct SampleQueue: ~Copyable {
    struct VideoEntry {
        fileprivate var ticket: UInt64
        var frame: VideoFrame
    }

    struct AudioEntry {
        fileprivate var ticket: UInt64
        var buffer: AudioBuffer
        var mixInput: Int?
    }

    enum Kind { case video, audio }

    private var video: RingBuffer<VideoEntry>
    private var audio: RingBuffer<AudioEntry>
    private var nextTicket: UInt64 = 0
    private(set) var statistics = DeliveryStatistics()

    init(videoCapacity: Int, audioCapacity: Int) {
        video = RingBuffer(capacity: videoCapacity)
        audio = RingBuffer(capacity: audioCapacity)
    }

    var count: Int { video.count + audio.count }

    /// Where queued frames are kept, for `CacheWarmer`.
    var videoStorage: UnsafeRawPointer { video.storage }

    /// Queues a frame; returns the frame dropped to make room, if any (release it outside any lock).
    mutating func push(video frame: consuming VideoFrame) -> VideoFrame? {
        var dropped: VideoFrame?
        if video.isFull {
            dropped = video.popFirst()?.frame
            statistics.droppedVideo += 1
        }
        video.append(VideoEntry(ticket: takeTicket(), frame: frame))
        noteCount()
        return dropped
    }

    /// Queues an audio chunk (from mix source `mixInput`, if any); returns the chunk dropped to make room, if any.
    mutating func push(audio buffer: consuming AudioBuffer, mixInput: Int? = nil) -> AudioBuffer? {
        var dropped: AudioBuffer?
        if audio.isFull {
            dropped = audio.popFirst()?.buffer
            statistics.droppedAudio += 1
        }
        audio.append(AudioEntry(ticket: takeTicket(), buffer: buffer, mixInput: mixInput))
        noteCount()
        return dropped
    }

    /// Queues `sample` (see `push(video:)` and `push(audio:mixInput:)`); returns the sample dropped, if any.
    mutating func push(_ sample: consuming CaptureSample, mixInput: Int? = nil) -> CaptureSample? {
        switch consume sample {
        case .video(let frame): push(video: frame).map(CaptureSample.video)
        case .audio(let buffer): push(audio: buffer, mixInput: mixInput).map(CaptureSample.audio)
        }
    }

    /// The kind of the oldest queued sample, nil when empty.
    var nextKind: Kind? {
        // The tickets are read in place: copying the entries out to compare them copied two frames.
        guard let videoTicket = video.first({ $0.ticket }) else { return audio.isEmpty ? nil : .audio }
        guard let audioTicket = audio.first({ $0.ticket }) else { return .video }
        return videoTicket < audioTicket ? .video : .audio
    }

    /// The oldest queued frame, counted as delivered; call it when `nextKind` is `.video`.
    mutating func popVideo() -> VideoFrame? {
        guard let entry = video.popFirst() else { return nil }
        statistics.delivered += 1
        return entry.frame
    }

    /// The oldest queued audio chunk and its mix source, counted as delivered; call it when `nextKind` is `.audio`.
    @inline(never)   // off the frame path (bench/capture/footprint)
    mutating func popAudio() -> AudioEntry? {
        guard let entry = audio.popFirst() else { return nil }
        statistics.delivered += 1
        return entry
    }

    /// The oldest queued sample, counted as delivered.
    mutating func pop() -> CaptureSample? {
        switch nextKind {
        case .video: popVideo().map(CaptureSample.video)
        case .audio: popAudio().map { .audio($0.buffer) }
        case nil: nil
        }
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

    /// Counts a push that woke the delivery thread.
    mutating func noteWakeup() {
        statistics.wakeups += 1
    }

    /// Throws every queued sample away, counted as discarded.
    @inline(never)   // off the frame path (bench/capture/footprint)
    mutating func discardAll() {
        statistics.discarded += count
        while video.popFirst() != nil {}
        while audio.popFirst() != nil {}
    }

    private mutating func takeTicket() -> UInt64 {
        defer { nextTicket &+= 1 }
        statistics.enqueued += 1
        return nextTicket
    }

    private mutating func noteCount() {
        statistics.highWaterMark = max(statistics.highWaterMark, count)
    }
}
