import Synchronization
@testable import PortalCapture

/// A sink that keeps every audio chunk it is given (and counts frames), for tests of the audio path.
final class AudioChunkSink: CaptureSink {
    let id = "audio-chunks"
    private let state = Mutex<(context: SinkContext?, chunks: [AudioBuffer], frames: Int)>((nil, [], 0))

    func open(_ context: SinkContext) throws(SinkError) { state.withLock { $0.context = context } }
    func consume(_ sample: CaptureSample) throws(SinkError) {
        switch sample {
        case .audio(let buffer): state.withLock { $0.chunks.append(buffer) }
        case .video: state.withLock { $0.frames += 1 }
        }
    }
    func close() throws(SinkError) -> SinkResult { SinkResult(videoFrames: state.withLock { $0.frames }) }

    var context: SinkContext? { state.withLock { $0.context } }
    var chunks: [AudioBuffer] { state.withLock { $0.chunks } }
    var videoFrames: Int { state.withLock { $0.frames } }
    /// Audio sample frames received so far (cheap enough to poll).
    var audioFrames: Int { state.withLock { $0.chunks.reduce(0) { $0 + $1.frameCount } } }

    /// The F32 samples of channel `channel`, chunk after chunk.
    func samples(channel: Int = 0) -> [Float] {
        chunks.flatMap { chunk in
            chunk.bytes.withUnsafeBytes { raw in
                let all = raw.bindMemory(to: Float.self)
                return stride(from: channel, to: all.count, by: chunk.format.channels).map { all[$0] }
            }
        }
    }

    /// Where consecutive chunks do not follow on to the sample: (index, gap in sample frames, + gap / - overlap).
    func discontinuities() -> [(index: Int, frames: Int64)] {
        let list = chunks
        var found: [(Int, Int64)] = []
        for i in list.indices.dropFirst() {
            let rate = UInt64(list[i].format.sampleRate)
            let expected = list[i - 1].timestamp + list[i - 1].duration
            let gap = Int64(bitPattern: list[i].timestamp &- expected)
            if abs(gap) * Int64(rate) > 1_000_000_000 { found.append((i, gap * Int64(rate) / 1_000_000_000)) }
        }
        return found
    }
}
