import CFFmpeg

/// Where an audio encoder's priming goes in the file, so that the first captured sample plays with the first
/// frame in every container, and nothing shifts the video.
///
/// An encoder with a delay (`AVCodecContext.initial_padding`: AAC's 1024 samples, Opus' 312) stamps its first
/// packet `-initial_padding`: the priming comes before the first captured sample, which is at the first
/// frame's time, 0. A container that can say how much of it to skip keeps it before 0:
/// - MP4, through its edit list (`elst` media time 1024). The file is fragmented, so `MediaWriter` writes it
///   with `delay_moov`: the `moov` follows the first fragment, when the muxer knows where each track starts.
/// - Matroska, through `CodecDelay` (Opus only, up to FFmpeg 5.1): players subtract it from every block's
///   timestamp, so the blocks carry it added. libavformat up to 59.30.100 (FFmpeg 5.1) writes `CodecDelay`
///   but does not add it; it saw the negative first timestamp and shifted every track instead, so the video
///   started 7 ms late. `audioOffset` adds it here; later versions add it themselves (`ts_offset`).
/// Where it cannot (AAC in Matroska up to 59.30.100, no `CodecDelay`), both tracks start `initial_padding`
/// late: the priming plays first, and the first captured sample still plays with the first frame.
///
/// Either way nothing negative reaches a muxer that would shift the tracks itself (`avoid_negative_ts`):
/// FFmpeg 5.1 sets that shift when the first packet goes out, and in fragmented MP4 without an edit list the
/// first video frame went out before it, so every later frame came 21.3 ms late.
struct AudioPriming: Equatable, Sendable {
    /// Added to the audio packets' timestamps, in the audio encoder's time base (samples).
    var audioOffset: Int64 = 0
    /// Added to the video packets' timestamps, in the same samples.
    var videoOffset: Int64 = 0

    init(audioOffset: Int64 = 0, videoOffset: Int64 = 0) {
        self.audioOffset = audioOffset
        self.videoOffset = videoOffset
    }

    /// The last libavformat whose Matroska muxer does not offset Opus blocks by their `CodecDelay`.
    static let lastMatroskaWithoutCodecDelayOffset: UInt32 = version(59, 30, 100)

    /// - Parameters:
    ///   - padding: the opened encoder's `initial_padding`, in samples at `sampleRate`.
    ///   - libavformat: `avformat_version()`.
    init(container: EncoderSink.Options.Container, codec: EncoderSink.Options.AudioCodec, padding: Int32,
         sampleRate: Int32, libavformat: UInt32 = avformat_version()) {
        self.init()
        guard padding > 0, container != .mp4, libavformat <= Self.lastMatroskaWithoutCodecDelayOffset else { return }
        if codec == .opus {
            // CodecDelay as the muxer writes it: initial_padding taken as 48 kHz samples.
            audioOffset = Int64(padding) * Int64(sampleRate) / 48_000
        } else {
            audioOffset = Int64(padding)
            videoOffset = Int64(padding)
        }
    }

    /// `AV_VERSION_INT` (a macro Swift cannot import).
    static func version(_ major: UInt32, _ minor: UInt32, _ micro: UInt32) -> UInt32 {
        major << 16 | minor << 8 | micro
    }
}
