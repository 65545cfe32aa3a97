import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The FFmpeg side of an `EncoderSink`: the output file, the muxer and the encoders. Built by `open` on the
/// delivery thread, then used only by the sink's encoding thread (handed over when that thread starts).
final class EncodingPipeline: @unchecked Sendable {
    let settings: EncoderSettings
    private let file: OutputFile
    private let writer: MediaWriter
    private let video: VideoEncoder?
    private let audio: AudioEncoder?
    private var finished = false

    init(settings: EncoderSettings, start: UInt64, reserve: Int64) throws(SinkError) {
        self.settings = settings
        let file = try OutputFile(path: settings.output, sink: "encoder", reserve: reserve)
        self.file = file
        do throws(SinkError) {
            writer = try MediaWriter(container: settings.container, file: file)
            let global = writer.wantsGlobalHeader
            video = try settings.video.map { (v) throws(SinkError) in
                try VideoEncoder(settings: v, start: start, container: settings.container, globalHeader: global)
            }
            audio = try settings.audio.map { (a) throws(SinkError) in
                try AudioEncoder(settings: a, start: start, globalHeader: global)
            }
            try video?.attach(to: writer)
            try audio?.attach(to: writer)
            try writer.writeHeader()
            if let audio {
                let priming = AudioPriming(container: settings.container, codec: audio.settings.codec,
                                           padding: audio.priming, sampleRate: audio.sampleRate)
                audio.timestampOffset = priming.audioOffset
                video?.delay(by: priming.videoOffset, rate: audio.sampleRate, writer: writer)
            }
        } catch {
            // Nothing playable was written: leave no empty or header-only file behind (if this open made it).
            file.discard()
            throw error
        }
    }

    /// Encodes one sample. Throws `insufficientStorage` as soon as the disk is nearly full (the reserve
    /// could not grow), so the caller stops and finalizes into the reserve.
    func consume(_ sample: CaptureSample) throws(SinkError) {
        switch sample {
        case .video(let frame): try video?.encode(frame, writer: writer)
        case .audio(let buffer): try audio?.encode(buffer, writer: writer)
        }
        if file.isLow { throw .insufficientStorage(path: settings.output) }
    }

    /// Flushes the encoders (unless `flush` is false: after a full disk, what they hold is dropped so the
    /// trailer fits), writes the trailer and closes the file. Returns the counts.
    ///
    /// Audio and video end together at `end` (CLOCK_MONOTONIC ns; the recording's end): the last frame stays
    /// on screen until then (CFR fills the slots that start before it, and the last one ends there; VFR shows
    /// the last frame again one frame before it when the screen was still, and it lasts until then), and the
    /// sound is padded with silence to it. A frame captured at 4.0 s of a 4.01 s recording at 1 fps lasts
    /// 10 ms, not to the end of its 1 s slot (the file was 5 s long, with a second of silence). Without `end`,
    /// the recording is taken to end with the sound when it goes on past the last frame, else with the video
    /// (the last frame shown for one frame, or to the end of its slot).
    func finish(flush: Bool, endingAt end: UInt64? = nil) throws(SinkError) -> SinkResult {
        guard !finished else { return result() }
        finished = true
        var failure: SinkError?
        if flush {
            do throws(SinkError) {
                if var end = end ?? estimatedEnd {
                    // A frame stamped after the stop (clocks differ by a little) still lasts a moment.
                    if let last = video?.lastFrameTime { end = max(end, last &+ 1_000_000) }
                    try video?.extend(to: end, writer: writer)
                    try video?.flush(endingAt: end, writer: writer)
                    try audio?.flush(endingAt: end, writer: writer)
                } else {
                    try video?.flush(endingAt: nil, writer: writer)
                    try audio?.flush(endingAt: nil, writer: writer)
                }
            } catch { failure = error }
        }
        do throws(SinkError) { try writer.finish() } catch { failure = failure ?? error }
        do throws(SinkError) { try file.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
        return result()
    }

    /// Where the recording ends when nobody said: the sound's end when it goes on past the last frame (the
    /// microphone runs to the stop), else the video's. Nil before any sample.
    private var estimatedEnd: UInt64? {
        guard let audio, audio.inputFrames > 0 else { return video?.end }
        guard let videoEnd = video?.end, let last = video?.lastFrameTime, audio.end <= last else { return audio.end }
        return videoEnd
    }

    func result() -> SinkResult {
        SinkResult(files: [settings.output], videoFrames: video?.encoded ?? 0,
                   audioFrames: Int(audio?.inputFrames ?? 0), bytesWritten: file.size,
                   droppedFrames: video?.dropped ?? 0, duplicatedFrames: video?.duplicated ?? 0,
                   encodedSize: settings.video.map { SinkResult.EncodedSize(width: $0.width, height: $0.height) })
    }
}
