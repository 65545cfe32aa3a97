import Foundation
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// Collects audio chunks (with the time each was received) from an `AudioCaptureStream`.
final class AudioCollector: Sendable {
    struct Chunk: Sendable {
        var buffer: AudioBuffer
        var receivedAt: UInt64
    }
    private let chunks = Mutex<[Chunk]>([])

    var handler: @Sendable (AudioBuffer) -> Void {
        { [self] buffer in
            let now = monotonicNanoseconds()
            chunks.withLock { $0.append(Chunk(buffer: buffer, receivedAt: now)) }
        }
    }

    var received: [Chunk] { chunks.withLock { $0 } }
    var sampleFrames: Int { chunks.withLock { $0.reduce(0) { $0 + $1.buffer.frameCount } } }
}

/// A test microphone: our own 440 Hz sine source node (`AudioProducerStream`), fresh for each test.
/// headless-desktop.md suggests PipeWire's audiotestsrc (`test-mic`), but in 0.3.65 that node loses its
/// buffers after a few link/unlink cycles under load ("out of buffers" in the daemon's log, silence after).
enum TestMicrophone {
    static func start(on core: PipeWireCore, channels: Int = 2) async throws -> (AudioProducerStream, PipeWireNodeInfo) {
        let source = try AudioProducerStream(core: core, format: AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: channels),
                                             nodeName: "pwrecord-test-mic-\(UInt32.random(in: 0...UInt32.max))")
        let node = try await source.waitUntilReady()
        return (source, node)
    }
}

@Suite("PipeWire microphone", .enabled(if: TestDesktop.isAvailable), .serialized)
struct MicrophoneTests {
    /// Estimates the frequency of channel 0 from its upward zero crossings.
    static func frequency(of chunks: [AudioCollector.Chunk]) -> Double {
        var previous: Float = 0, crossings = 0, first = -1, last = -1, index = 0
        for chunk in chunks {
            let channels = chunk.buffer.format.channels
            chunk.buffer.bytes.withUnsafeBytes { raw in
                let samples = raw.bindMemory(to: Float.self)
                for frame in 0..<(samples.count / channels) {
                    let s = samples[frame * channels]
                    if previous < 0 && s >= 0 {
                        crossings += 1
                        if first < 0 { first = index }
                        last = index
                    }
                    previous = s
                    index += 1
                }
            }
        }
        guard crossings > 1, let rate = chunks.first?.buffer.format.sampleRate else { return 0 }
        return Double(crossings - 1) * Double(rate) / Double(last - first)
    }

    static func median(_ values: [Int64]) -> Int64 {
        let sorted = values.sorted()
        return sorted.isEmpty ? .max : sorted[sorted.count / 2]
    }

    @Test("two seconds from the microphone are a 440 Hz tone at 48 kHz with the source's channels", arguments: [2, 1])
    func microphoneGivesTheTone(channels: Int) async throws {
        let core = try PipeWireCore(name: "pwrecord-test-mic")
        defer { core.close() }
        let (source, mic) = try await TestMicrophone.start(on: core, channels: channels)
        defer { source.stop() }
        let collector = AudioCollector()
        let stream = try AudioCaptureStream(core: core, target: .object(try #require(mic.name)),
                                            handler: collector.handler)
        defer { stream.stop() }
        let got = await eventually(timeout: .seconds(6)) { collector.sampleFrames >= 2 * 48_000 }
        #expect(got, "\(collector.sampleFrames) sample frames; stats \(stream.statistics), state \(stream.state)")
        let chunks = collector.received
        let format = try #require(chunks.first?.buffer.format)
        #expect(format == AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: channels))
        #expect(stream.currentFormat == format)
        let hz = Self.frequency(of: chunks)
        #expect(abs(hz - 440) <= 5, "estimated \(hz) Hz")
        let sequences = chunks.map(\.buffer.sequence)
        #expect(sequences == Array(1...UInt64(sequences.count)))
        let peak = chunks.flatMap { c in c.buffer.bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }.map(abs).max() ?? 0
        #expect(peak > 0.1 && peak <= 1.0001, "peak \(peak)")
    }

    @Test("audio and video timestamps are on CLOCK_MONOTONIC, within a frame of their arrival")
    func audioAndVideoShareTheClock() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-clock")
        defer { core.close() }
        let (source, mic) = try await TestMicrophone.start(on: core)
        defer { source.stop() }
        let rate = FrameRate(30)
        let frameDuration = UInt64(1_000_000_000 / rate.framesPerSecond)
        let producer = try VideoProducerStream(
            core: core, options: VideoProducerOptions(format: VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: rate),
                                                      nodeName: "test-clock-video"),
            render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        let frames = FrameCollector()
        let video = try VideoCaptureStream(core: core, target: .node(id: node.id), frameHandler: frames.frameHandler)
        defer { video.stop() }
        let audio = AudioCollector()
        let microphone = try AudioCaptureStream(core: core, target: .object(try #require(mic.name)), handler: audio.handler)
        defer { microphone.stop() }
        #expect(await eventually(timeout: .seconds(5)) { frames.summaries.count >= 15 && audio.received.count >= 15 })
        // Nothing is stamped after it arrived, and a typical sample is within a frame of its arrival. Single ones
        // may be older: an audio chunk is stamped with its capture time on the graph clock, so its age includes
        // how late this process ran, which a loaded machine stretches past a frame now and then.
        for frame in frames.summaries {
            #expect(frame.timestamp <= frame.receivedAt, "video frame \(frame.sequence) is stamped after it arrived")
        }
        for chunk in audio.received {
            #expect(chunk.buffer.timestamp <= chunk.receivedAt, "audio chunk \(chunk.buffer.sequence) is stamped after it arrived")
        }
        let videoAge = Self.median(frames.summaries.map { Int64($0.receivedAt) - Int64($0.timestamp) })
        let audioAge = Self.median(audio.received.map { Int64($0.receivedAt) - Int64($0.buffer.timestamp) })
        #expect(videoAge < Int64(frameDuration), "video frames are \(videoAge) ns old at the median")
        #expect(audioAge < Int64(frameDuration), "audio chunks are \(audioAge) ns old at the median")
        let audioTimes = audio.received.map(\.buffer.timestamp)
        #expect(zip(audioTimes, audioTimes.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("the test microphone keeps an audio clock while a 60 fps video producer drives the graph next to it")
    func microphoneRunsOnAnAudioClock() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-mic-clock")
        defer { core.close() }
        // An active video driver with a follower first: PipeWire 0.3.65 gives a source without a driver of its
        // own to such a driver, and the graph then ran one 1024-frame quantum per video frame, unclocked.
        let producer = try VideoProducerStream(
            core: core, options: VideoProducerOptions(format: VideoFormat(pixelFormat: .bgrx, width: 64, height: 64, frameRate: FrameRate(60)),
                                                      nodeName: "test-mic-clock-video"),
            render: TestPattern.render)
        defer { producer.stop() }
        let node = try await producer.waitUntilReady()
        let frames = FrameCollector()
        let video = try VideoCaptureStream(core: core, target: .node(id: node.id), frameHandler: frames.frameHandler)
        defer { video.stop() }
        #expect(await eventually(timeout: .seconds(5)) { frames.summaries.count >= 5 })
        let (source, mic) = try await TestMicrophone.start(on: core)
        defer { source.stop() }
        let audio = AudioCollector()
        let microphone = try AudioCaptureStream(core: core, target: .object(try #require(mic.name)), handler: audio.handler)
        defer { microphone.stop() }
        #expect(await eventually(timeout: .seconds(6)) { audio.received.count >= 30 })
        let stats = microphone.statistics
        #expect(stats.chunksDelivered > 0 && stats.chunksTimedByGraphClock == stats.chunksDelivered,
                "every chunk is timed by the graph clock: \(stats)")
        // On an audio clock no chunk starts before the previous one ended (a faster-than-time source would).
        let chunks = audio.received
        for (a, b) in zip(chunks, chunks.dropFirst()) {
            #expect(b.buffer.timestamp + 1_000 >= a.buffer.timestamp + a.buffer.duration,
                    "chunk \(b.buffer.sequence) starts \(Int64(a.buffer.timestamp + a.buffer.duration) - Int64(b.buffer.timestamp)) ns before the previous one ends")
        }
    }

    @Test("a node's info has the properties its registry entry leaves out; an unknown node is an error")
    func nodePropertiesComeFromTheInfo() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-node-info")
        defer { core.close() }
        let (source, node) = try await TestMicrophone.start(on: core, channels: 3)
        defer { source.stop() }
        #expect(node.properties["audio.channels"] == nil, "the registry's global carries few keys")
        let properties = try core.nodeProperties(id: node.id)
        #expect(properties["audio.channels"] == "3")
        #expect(properties["node.name"] == node.name)
        #expect(core.nodeID(for: .object(try #require(node.name))) == node.id)
        #expect(core.nodeID(for: .object(String(try #require(node.serial)))) == node.id)
        #expect(throws: PipeWireError.self) { try core.nodeProperties(id: 999_999) }
    }
}
