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
            // Nothing playable was written: leave no empty or header-only file behind.
            try? file.close()
            if file.isRegularFile { unlink(settings.output) }
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
    func finish(flush: Bool) throws(SinkError) -> SinkResult {
        guard !finished else { return result() }
        finished = true
        var failure: SinkError?
        if flush {
            do throws(SinkError) {
                // Audio and video end together: the last frame stays on screen while the sound goes on, and
                // the sound is padded with silence to the end of the video.
                if let video, let audio { try video.extend(to: audio.end, writer: writer) }
                let videoEnd = video?.end
                try video?.flush(writer: writer)
                try audio?.flush(endingAt: videoEnd, writer: writer)
            } catch { failure = error }
        }
        do throws(SinkError) { try writer.finish() } catch { failure = failure ?? error }
        do throws(SinkError) { try file.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
        return result()
    }

    func result() -> SinkResult {
        SinkResult(files: [settings.output], videoFrames: video?.encoded ?? 0,
                   audioFrames: Int(audio?.inputFrames ?? 0), bytesWritten: file.size,
                   droppedFrames: video?.dropped ?? 0, duplicatedFrames: video?.duplicated ?? 0)
    }
}
