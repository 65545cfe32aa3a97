// A child process for the sink tests that must kill a recording mid-way (`kill -9`): it records synthetic
// frames (TestPattern, 320x240 at 30 fps, paced in real time) and a 440 Hz sine into an EncoderSink and
// prints the number of each frame handed to the sink, until it is killed or `seconds` pass.
//
//     SinkTestHelper <output> <mkv|mp4|webm> <h264|vp9|av1|ffv1> <seconds>
//
// Two more modes serve bench/encoder.sh (CPU per second of video, against the ffmpeg CLI):
//
//     SinkTestHelper bench <output.mkv> <width> <height> <fps> <seconds>   encode as fast as possible
//     SinkTestHelper rawframes <output.raw> <width> <height> <fps>         the same 1 s of frames, BGRx
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

/// One second of TestPattern frames in BGRx (the same pictures for `bench` and `rawframes`).
func patternFrames(width: Int, height: Int, fps: Int) -> (VideoFormat, [FrameStorage]) {
    let format = VideoFormat(pixelFormat: .bgrx, width: width, height: height, frameRate: FrameRate(fps, 1))
    let frames = (0..<fps).map { i in
        let storage = FrameStorage(capacity: format.minimumStride * height)
        TestPattern.render(into: storage.bytes, stride: format.minimumStride, format: format, frameNumber: UInt32(i))
        return storage
    }
    return (format, frames)
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

let args = CommandLine.arguments
if args.count == 7, args[1] == "bench", let w = Int(args[3]), let h = Int(args[4]), let fps = Int(args[5]),
   let seconds = Int(args[6]) {
    EncoderSink.setLibraryLogLevel(.error)
    let (format, frames) = patternFrames(width: w, height: h, fps: fps)
    var options = EncoderSink.Options()
    options.container = .mkv
    options.preset = "ultrafast"
    options.crf = 23
    options.overflow = .block
    do throws(SinkError) {
        let sink = try EncoderSink(options: options)
        let cpu0 = cpuSeconds()
        let wall0 = monotonicNow()
        try sink.open(SinkContext(video: format, audio: nil, output: args[2], startTime: 0))
        for i in 0..<(fps * seconds) {
            let ts = UInt64(i) * 1_000_000_000 / UInt64(fps)
            try sink.consume(.video(VideoFrame(format: format, stride: format.minimumStride, timestamp: ts,
                                               sequence: UInt64(i), storage: frames[i % fps])))
        }
        let result = try sink.close()
        let cpu = cpuSeconds() - cpu0
        let wall = Double(monotonicNow() - wall0) / 1e9
        print("pwrecord encoder: \(result.videoFrames) frames, cpu \(cpu) s, wall \(wall) s, cpu per video second \(cpu / Double(seconds))")
    } catch {
        fail("\(error)")
    }
    exit(0)
}
if args.count == 6, args[1] == "rawframes", let w = Int(args[3]), let h = Int(args[4]), let fps = Int(args[5]) {
    let (format, frames) = patternFrames(width: w, height: h, fps: fps)
    guard FileManager.default.createFile(atPath: args[2], contents: nil),
          let out = FileHandle(forWritingAtPath: args[2]) else { fail("cannot write \(args[2])") }
    for f in frames { out.write(Data(bytes: f.bytes, count: format.minimumStride * h)) }
    out.closeFile()
    exit(0)
}
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
