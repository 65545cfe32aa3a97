/// Writes YUV4MPEG2 (`.y4m`): a one-line stream header, then per frame `FRAME\n` and the Y, U, V planes.
/// Y4M carries no timestamps: frames follow each other at the header's rate.
struct Y4MWriter {
    let width: Int
    let height: Int
    let rate: FrameRate
    let chroma: RawVideoSink.Chroma

    /// The stream header, e.g. `YUV4MPEG2 W320 H240 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n`.
    /// `C420jpeg` is 4:2:0 with centred chroma, as libyuv produces it; the range is BT.601 limited.
    var header: String {
        let c = chroma == .c420 ? "C420jpeg" : "C444"
        return "YUV4MPEG2 W\(width) H\(height) F\(rate.numerator):\(rate.denominator) Ip A1:1 \(c) XCOLORRANGE=LIMITED\n"
    }

    static let frameHeader: [UInt8] = Array("FRAME\n".utf8)

    var layout: FrameConverter.Layout { chroma == .c420 ? .i420 : .i444 }

    /// Bytes of one frame's planes (without `FRAME\n`).
    var frameSize: Int {
        FrameConverter.planeSizes(layout, width: width, height: height).reduce(0) { $0 + $1.width * $1.height }
    }
}
