// A child process for the sink tests that must kill a recording mid-way (`kill -9`): it records synthetic
// frames (TestPattern, 320x240 at 30 fps, paced in real time) and a 440 Hz sine into an EncoderSink and
// prints the number of each frame handed to the sink, until it is killed or `seconds` pass.
//
//     SinkTestHelper <output> <mkv|mp4|webm> <h264|vp9|av1|ffv1> <seconds>
import Foundation
import Plugins
import PortalTestSupport

func monotonicNow() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SinkTestHelper: \(message)\n".utf8))
    exit(2)
}

let args = CommandLine.arguments
guard args.count == 5, let container = EncoderSink.Options.Container(rawValue: args[2]),
      let codec = EncoderSink.Options.VideoCodec(rawValue: args[3]), let seconds = Double(args[4]) else {
    fail("usage: SinkTestHelper <output> <mkv|mp4|webm> <h264|vp9|av1|ffv1> <seconds>")
}
EncoderSink.setLibraryLogLevel(.error)
let video = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(30, 1))
let audio = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)
var options = EncoderSink.Options()
options.container = container
options.videoCodec = codec
do throws(SinkError) {
    let sink = try EncoderSink(options: options)
    let start = monotonicNow()
    try sink.open(SinkContext(video: video, audio: audio, output: args[1], startTime: start))
    let frames = Int(seconds * 30)
    let chunk = audio.sampleRate / 100
    var audioChunks = 0
    for i in 0..<frames {
        let due = start + UInt64(i) * 1_000_000_000 / 30
        while monotonicNow() < due { usleep(1000) }
        // Audio up to this frame's time, in 10 ms chunks.
        while UInt64(audioChunks) * 10_000_000 <= due - start {
            let ts = start + UInt64(audioChunks) * 10_000_000
            var bytes = [UInt8]()
            for s in 0..<chunk {
                let v = Float(0.5 * sin(2 * Double.pi * 440 * Double(audioChunks * chunk + s) / 48_000))
                for _ in 0..<2 { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            }
            try sink.consume(.audio(AudioBuffer(format: audio, timestamp: ts, sequence: UInt64(audioChunks), bytes: bytes)))
            audioChunks += 1
        }
        let storage = FrameStorage(capacity: video.minimumStride * video.height)
        TestPattern.render(into: storage.bytes, stride: video.minimumStride, format: video, frameNumber: UInt32(i))
        try sink.consume(.video(VideoFrame(format: video, stride: video.minimumStride, timestamp: monotonicNow(),
                                           sequence: UInt64(i), storage: storage)))
        FileHandle.standardOutput.write(Data("sent \(i)\n".utf8))
    }
    _ = try sink.close()
    FileHandle.standardOutput.write(Data("closed\n".utf8))
} catch {
    fail("\(error)")
}
