/// The audio one source delivered before the recording started, kept for a while: the first frame's timestamp
/// (the recording's start) can be earlier than the moment it arrives (a compositor stamps a frame when it
/// composes it; a first frame may wait for the link; a loaded machine delays it), and what the microphone
/// captured from that timestamp on has then arrived already. Without it the sound began up to that delay
/// after the first frame (60 ms in a loaded CI run of `RecordCodecTests`).
///
/// Holds at most `window` nanoseconds of audio before the newest chunk (the pipeline passes its timestamp
/// tolerance: a frame stamped further back than that is restamped with its arrival time).
struct AudioPreroll {
    let window: UInt64
    private var chunks: [AudioBuffer] = []

    init(window: UInt64) { self.window = window }

    /// Keeps `chunk`, forgetting chunks that ended more than `window` before it began.
    mutating func add(_ chunk: AudioBuffer) {
        if chunk.timestamp > window {
            let horizon = chunk.timestamp - window
            chunks.removeAll { $0.timestamp &+ $0.duration <= horizon }
        }
        chunks.append(chunk)
    }

    /// The chunks' samples from `start` on, in the order they came (a chunk that straddles `start` is cut);
    /// the preroll is then empty.
    mutating func take(from start: UInt64) -> [AudioBuffer] {
        defer { chunks.removeAll() }
        return chunks.compactMap { $0.dropping(before: start) }
    }

    mutating func clear() { chunks.removeAll() }

    var isEmpty: Bool { chunks.isEmpty }
}
