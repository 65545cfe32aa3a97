import Foundation
import Testing
@testable import PortalCapture
import PortalTestSupport

/// A sink of our own (`PipeWireFactoryNode`: a null audio sink made through the core), a playback stream into it
/// (`AudioProducerStream` as `.playback`) and a capture of its monitor (`AudioCaptureOptions.captureSinkMonitor`):
/// the parts of "system audio", each fresh for the test, so the desktop's own test speaker is not involved.
@Suite("PipeWire sink monitor", .enabled(if: TestDesktop.isAvailable), .serialized)
struct SinkMonitorTests {
    static func nullSink(on core: PipeWireCore, name: String) throws -> PipeWireFactoryNode {
        try PipeWireFactoryNode(core: core, properties: [
            "factory.name": "support.null-audio-sink", "node.name": name, "media.class": "Audio/Sink",
            "audio.channels": "2", "audio.rate": "48000", "audio.position": "[ FL FR ]",
        ])
    }

    @Test("a null sink made through the core appears as an Audio/Sink and goes when destroyed")
    func factoryNodeAppearsAndGoes() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-factory")
        defer { core.close() }
        let name = "pwrecord-test-sink-\(UInt32.random(in: 0...UInt32.max))"
        let sink = try Self.nullSink(on: core, name: name)
        let info = try await sink.waitUntilReady()
        #expect(info.name == name)
        #expect(info.mediaClass == "Audio/Sink")
        #expect(sink.nodeID == info.id)
        // Another client sees it too, and stops seeing it once it is destroyed.
        let other = try PipeWireCore(name: "pwrecord-test-factory-observer")
        defer { other.close() }
        _ = try await other.waitForNode { $0.name == name }
        sink.destroy()
        #expect(await eventually(timeout: .seconds(3)) { !other.nodes.contains { $0.name == name } })
    }

    @Test("a factory the daemon does not have is refused with objectCreationFailed")
    func unknownFactoryIsRefused() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-factory-bad")
        defer { core.close() }
        let node = try PipeWireFactoryNode(core: core, factory: "no-such-factory", properties: ["node.name": "x"])
        await #expect {
            _ = try await node.waitUntilReady(timeout: .seconds(3))
        } throws: { error in
            guard case .objectCreationFailed(let factory, _)? = error as? PipeWireError else { return false }
            return factory == "no-such-factory"
        }
    }

    @Test("a playback stream into a sink is heard at that sink's monitor, at its own frequency")
    func playbackIsHeardAtTheMonitor() async throws {
        let core = try PipeWireCore(name: "pwrecord-test-monitor")
        defer { core.close() }
        let name = "pwrecord-test-sink-\(UInt32.random(in: 0...UInt32.max))"
        let sink = try Self.nullSink(on: core, name: name)
        defer { sink.destroy() }
        _ = try await sink.waitUntilReady()
        let tone = try AudioProducerStream(core: core, nodeName: name + "-tone", role: .playback(target: name),
                                           render: AudioProducerStream.sine(frequency: 660, amplitude: 0.5))
        defer { tone.stop() }
        let toneInfo = try await tone.waitUntilReady()
        #expect(toneInfo.mediaClass == "Stream/Output/Audio")
        #expect(await eventually(timeout: .seconds(5)) { tone.state == .streaming }, "state \(tone.state)")
        var options = AudioCaptureOptions()
        options.captureSinkMonitor = true
        let collector = AudioCollector()
        let monitor = try AudioCaptureStream(core: core, target: .object(name), options: options, handler: collector.handler)
        defer { monitor.stop() }
        #expect(await eventually(timeout: .seconds(6)) { collector.sampleFrames >= 48_000 },
                "\(collector.sampleFrames) sample frames; stats \(monitor.statistics), state \(monitor.state)")
        #expect(monitor.currentFormat?.channels == 2)
        // Channel 0 of the last second: its loudest frequency, and its level. (By spectrum, not zero crossings:
        // under a full test run this process's data thread is at times starved and a cycle lost, which shifts
        // zero-crossing estimates by tens of Hz but leaves the peak where it is.)
        let samples = collector.received.flatMap { chunk in
            chunk.buffer.bytes.withUnsafeBytes { raw in
                let all = raw.bindMemory(to: Float.self)
                return stride(from: 0, to: all.count, by: chunk.buffer.format.channels).map { all[$0] }
            }
        }
        let second = samples.suffix(48_000)
        let (dominant, levels) = await onThread {
            (ToneAnalysis.dominantFrequency(in: second, rate: 48_000),
             ToneAnalysis.amplitudes(of: 660, in: Array(second), rate: 48_000).sorted())
        }
        #expect(dominant == 660)
        #expect(abs(levels[levels.count / 2] - 0.5) < 0.02, "660 Hz per 100 ms: \(levels)")
    }
}
