/// Mixes several audio sources (the microphone and system audio) into one stream, for sinks that take one
/// audio track.
///
/// Every chunk is converted to `options.outputFormat` (F32, channels mapped: a mono source goes to every channel, a
/// stereo one is averaged into mono) and placed by its timestamp, to the sample, on one timeline: sample frames
/// on CLOCK_MONOTONIC at the mix's rate, the clock every capture stream stamps with. Samples of the same
/// moment are summed and clipped to [-1, 1]. Within one source, a chunk within `tolerance` of where the
/// previous one ended follows it directly; a later one leaves silence before it; an earlier one loses what
/// overlaps.
///
/// Output goes up to the point every source has reached, so it waits for the slowest source, but never for
/// longer than `maximumWait` behind the newest sample of any source: past that, a source that is behind, or
/// that delivers nothing (a suspended sink sends no buffers), counts as silence, and what it delivers later for
/// that time is left out (`Statistics.lateFrames`). The mix therefore never stalls while one source delivers,
/// and runs at most `maximumWait` behind it. `flush()` hands out what is left at the end.
///
/// Threading: a value type with no locks, used by one thread at a time; the recorder's delivery thread
/// (`DeliveryQueue`) owns it, so PipeWire's data threads only hand chunks over.
public struct AudioMixer: Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Sample frames handed out.
        public var framesOut = 0
        /// Per source: sample frames that arrived after the mix had gone past their time (the source was more
        /// than `maximumWait` behind), left out.
        public var lateFrames: [Int]
        /// Per source: sample frames dropped because they overlapped what the source had already delivered.
        public var overlappingFrames: [Int]
        /// Per source: frames of silence put where its timestamps jumped ahead (samples it lost).
        public var gapFrames: [Int]
        /// Chunks refused: at another sample rate than the mix, or naming a source out of range.
        public var refusedChunks = 0

        init(inputs: Int) {
            lateFrames = Array(repeating: 0, count: inputs)
            overlappingFrames = lateFrames
            gapFrames = lateFrames
        }
    }

    public let options: AudioMixerOptions
    public private(set) var statistics: Statistics

    /// One source: its samples in the output format from `base` on (gaps filled with silence).
    private struct Input {
        var samples: [Float] = []
        /// The position just after its newest sample; nil until its first chunk.
        var end: Int64?
    }

    private var inputs: [Input]
    /// The position of every input's first pending sample: where the next output starts.
    private var base: Int64?
    /// Whether anything was handed out (until then an earlier chunk moves `base` back instead of being late).
    private var started = false
    private var sequence: UInt64 = 0
    private let channels: Int
    private let rate: Int
    private let maximumWaitFrames: Int64
    private let toleranceFrames: Int64

    public init(options: AudioMixerOptions = AudioMixerOptions()) {
        self.options = options
        let count = max(1, options.inputs)
        inputs = Array(repeating: Input(), count: count)
        statistics = Statistics(inputs: count)
        channels = options.outputFormat.channels
        rate = options.outputFormat.sampleRate
        maximumWaitFrames = Self.frames(in: options.maximumWait, rate: rate)
        toleranceFrames = Self.frames(in: options.tolerance, rate: rate)
    }

    /// Takes one chunk of source `input` and returns the mixed chunks that are now complete (often one, or
    /// none while the other sources are behind within `maximumWait`).
    public mutating func add(_ buffer: AudioBuffer, input: Int) -> [AudioBuffer] {
        guard inputs.indices.contains(input), buffer.format.sampleRate == rate, buffer.format.bytesPerFrame > 0 else {
            statistics.refusedChunks += 1
            return []
        }
        var samples = Self.convert(buffer, channels: channels)
        var frames = samples.count / channels
        guard frames > 0 else { return [] }
        var at = Self.position(of: buffer.timestamp, rate: rate)
        var gap: Int64 = 0
        if let end = inputs[input].end {
            if abs(at - end) <= toleranceFrames {
                at = end
            } else if at < end {
                let overlap = Int(min(end - at, Int64(frames)))
                statistics.overlappingFrames[input] += overlap
                drop(overlap, from: &samples, frames: &frames, at: &at)
            } else {
                gap = at - end
            }
        }
        if let current = base, at < current {
            if started {
                let late = Int(min(current - at, Int64(frames)))
                statistics.lateFrames[input] += late
                drop(late, from: &samples, frames: &frames, at: &at)
            } else {
                // Nothing handed out yet: every source's pending samples move to make room before them.
                let room = [Float](repeating: 0, count: Int(current - at) * channels)
                for index in inputs.indices where !inputs[index].samples.isEmpty {
                    inputs[index].samples.insert(contentsOf: room, at: 0)
                }
                base = at
            }
        }
        // Every source silent for over a second (a lost microphone beside a suspended output sends nothing at
        // all, for minutes maybe): the mix moves on to just before this chunk and leaves a gap in its timestamps,
        // which sinks fill (the encoder's audio timeline does), rather than making minutes of zeros here in one
        // piece. It keeps `maximumWait` before the chunk, so another source's samples for that time still fit;
        // a shorter silence (a starved thread) is filled here as before.
        if let current = base, at - current > Int64(rate), inputs.allSatisfy({ $0.samples.isEmpty }) {
            base = at - maximumWaitFrames
        }
        let start = base ?? at
        base = start
        if frames > 0 {
            let pending = Int64(inputs[input].samples.count / channels)
            let silence = at - start - pending
            if silence > 0 {
                inputs[input].samples.append(contentsOf: repeatElement(0, count: Int(silence) * channels))
                statistics.gapFrames[input] += Int(min(silence, gap))
            }
            inputs[input].samples.append(contentsOf: samples)
        }
        inputs[input].end = max(inputs[input].end ?? at, at + Int64(frames))
        return mix(final: false)
    }

    /// Hands out everything pending, up to the newest sample of any source; what a source has not delivered
    /// for that time is silence. For the end of a recording.
    public mutating func flush() -> [AudioBuffer] {
        mix(final: true)
    }

    // MARK: mixing

    private mutating func mix(final: Bool) -> [AudioBuffer] {
        guard let start = base, let newest = inputs.compactMap(\.end).max() else { return [] }
        var horizon = newest
        if !final {
            // Each source holds the mix back to where it is, but never more than the wait behind the newest.
            let floor = newest - maximumWaitFrames
            for input in inputs { horizon = min(horizon, max(input.end ?? floor, floor)) }
        }
        guard horizon > start else { return [] }
        let frames = Int(horizon - start)
        var out = [Float](repeating: 0, count: frames * channels)
        for index in inputs.indices {
            let take = min(inputs[index].samples.count, out.count)
            guard take > 0 else { continue }
            inputs[index].samples.withUnsafeBufferPointer { source in
                for i in 0..<take { out[i] += source[i] }
            }
            inputs[index].samples.removeFirst(take)
        }
        for i in out.indices { out[i] = min(1, max(-1, out[i])) }
        base = horizon
        started = true
        sequence &+= 1
        statistics.framesOut += frames
        let bytes = out.withUnsafeBytes { Array($0) }
        return [AudioBuffer(format: options.outputFormat, timestamp: Self.time(of: start, rate: rate), sequence: sequence,
                            bytes: bytes)]
    }

    private func drop(_ count: Int, from samples: inout [Float], frames: inout Int, at: inout Int64) {
        guard count > 0 else { return }
        samples.removeFirst(count * channels)
        frames -= count
        at += Int64(count)
    }

    // MARK: conversion

    /// The chunk's samples as F32 in `channels` channels: equal counts copied; mono copied to every channel;
    /// to mono, the average; otherwise channel c takes source channel c mod n (more channels), or the average
    /// of the source channels that fall on it (fewer).
    static func convert(_ buffer: AudioBuffer, channels: Int) -> [Float] {
        let inChannels = buffer.format.channels
        let frames = buffer.frameCount
        guard inChannels > 0, frames > 0 else { return [] }
        let isFloat = buffer.format.sampleFormat == .f32
        var out = [Float](repeating: 0, count: frames * channels)
        buffer.bytes.withUnsafeBytes { raw in
            func sample(_ index: Int) -> Float {
                isFloat ? raw.loadUnaligned(fromByteOffset: index * 4, as: Float.self)
                    : Float(raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)) / 32768
            }
            for frame in 0..<frames {
                let from = frame * inChannels, to = frame * channels
                if inChannels == channels {
                    for c in 0..<channels { out[to + c] = sample(from + c) }
                } else if inChannels < channels {
                    for c in 0..<channels { out[to + c] = sample(from + c % inChannels) }
                } else {
                    for c in 0..<inChannels { out[to + c % channels] += sample(from + c) }
                    for c in 0..<channels {
                        let sharing = (inChannels - c + channels - 1) / channels
                        out[to + c] /= Float(sharing)
                    }
                }
            }
        }
        return out
    }

    // MARK: the timeline

    /// The sample frame at CLOCK_MONOTONIC `time` (ns) at `rate`, rounded (no overflow for any `UInt64` time).
    static func position(of time: UInt64, rate: Int) -> Int64 {
        let r = UInt64(rate)
        return Int64(time / 1_000_000_000 * r + (time % 1_000_000_000 * r + 500_000_000) / 1_000_000_000)
    }

    /// The time (ns) of sample frame `position`: the inverse of `position(of:rate:)`.
    static func time(of position: Int64, rate: Int) -> UInt64 {
        let r = Int64(rate), p = max(position, 0)
        return UInt64(p / r) * 1_000_000_000 + UInt64(p % r) * 1_000_000_000 / UInt64(r)
    }

    static func frames(in duration: Duration, rate: Int) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * Int64(rate) + attoseconds / 1_000_000_000 * Int64(rate) / 1_000_000_000)
    }
}
