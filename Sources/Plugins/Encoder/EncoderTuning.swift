/// What bounds the encoder sink's memory and delay beyond the codec's preset: how many captured frames may
/// wait for the encoding thread, and how libx264 pipelines its frames.
///
/// Measured at 1920x1080 (bench/recording-memory, bench/README.md): each captured BGRx frame is 8.3 MB, and
/// libx264 with the `veryfast` preset keeps about 165 MB of frames of its own (frame threads, each with frames
/// in flight, a lookahead, B-frames). `EncoderSink.Options.Latency.low` (the default) keeps about 50 MB.
enum EncoderTuning {
    /// The most bytes of captured frames the encoding queue holds: `Options.queueCapacity` frames at most,
    /// and no more than fit in this (never fewer than 2): 2 frames at 1080p, 4 at 720p.
    static let queueBudget = 16 << 20

    /// The queue's capacity in frames for frames of `format` (`limit` when the recording has no video).
    static func queueCapacity(_ limit: Int, for format: VideoFormat?) -> Int {
        guard let format else { return limit }
        let frameBytes = max(1, format.minimumStride * format.height)
        return max(1, min(limit, max(2, queueBudget / frameBytes)))
    }

    /// libx264 options (`AVOption` name, value) beyond `preset` and `crf`, applied in order.
    ///
    /// - `.low`: `bframes=0:rc-lookahead=1:sync-lookahead=0:sliced-threads=1` in `x264-params`: no B-frames,
    ///   the threads share one frame (slices) instead of each holding frames of their own, and a lookahead of
    ///   one frame, which keeps the macroblock tree. Like x264's `zerolatency` tune but with that one frame
    ///   (without it, screen content needed 1.1-1.3 times the size for the same PSNR) and without its
    ///   `force-cfr` (frame times are kept). Against `.normal`, on screen content: about the same size for the
    ///   same PSNR (0.94-0.98 times), a lower PSNR at the same crf, 10 % less CPU (bench/README.md). The
    ///   presets without a lookahead (`ultrafast`, `superfast`) keep none.
    /// - `.normal`: the preset's own B-frames and frame threads; only its lookahead is capped, to about a sixth
    ///   of a second (what a crash can lose), and never raised above the preset's.
    static func x264Options(_ video: EncoderSettings.Video) -> [(String, String)] {
        let presetLookahead = x264Lookahead[video.preset ?? "medium"] ?? 40
        switch video.latency {
        case .low:
            let lookahead = min(1, presetLookahead)
            return [("x264-params", "bframes=0:rc-lookahead=\(lookahead):sync-lookahead=0:sliced-threads=1")]
        case .normal:
            let cap = max(1, min(10, Int(video.frameRate.framesPerSecond / 6)))
            return presetLookahead > cap ? [("rc-lookahead", String(cap))] : []
        }
    }

    /// x264's `rc_lookahead` per preset (x264's `x264_param_default_preset`).
    static let x264Lookahead: [String: Int] = [
        "ultrafast": 0, "superfast": 0, "veryfast": 10, "faster": 20, "fast": 30, "medium": 40,
        "slow": 50, "slower": 60, "veryslow": 60, "placebo": 60,
    ]
}
