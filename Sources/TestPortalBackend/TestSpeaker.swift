import PortalCapture

/// The desktop's test speaker, so that "system audio" (what the default output plays, read from its monitor)
/// has something to hear: a null audio sink named `test-speaker` (`media.class` Audio/Sink, stereo, 48 kHz,
/// made in the daemon through our core, as `pw-cli create-node adapter` makes one), which WirePlumber takes as
/// the default output, and an application playing into it: an `AudioProducerStream` playback stream
/// `test-speaker-tone` (`media.class` Stream/Output/Audio) with an 880 Hz sine at 0.2 of full scale. The tone
/// is quiet enough that it and the test microphone's (0.8) add up without clipping. The sink is its own
/// driver (a timer, like a sound card) and paces the stream. Both live as long as the backend.
struct TestSpeaker: Sendable {
    static let nodeName = "test-speaker"
    static let toneNodeName = "test-speaker-tone"
    static let frequency = 880.0
    static let amplitude: Float = 0.2
    static let format = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)

    let sink: PipeWireFactoryNode
    let tone: AudioProducerStream

    /// Creates the sink, waits until PipeWire announced it, then starts the tone and waits until it plays
    /// (WirePlumber linked it to the sink and the sink's clock runs).
    static func start(on core: PipeWireCore) async throws(PipeWireError) -> TestSpeaker {
        let sink = try PipeWireFactoryNode(core: core, properties: [
            "factory.name": "support.null-audio-sink", "node.name": nodeName,
            "node.description": "pwrecord test speaker", "media.class": "Audio/Sink",
            "audio.channels": "\(format.channels)", "audio.rate": "\(format.sampleRate)", "audio.position": "[ FL FR ]",
        ])
        _ = try await sink.waitUntilReady()
        let tone = try AudioProducerStream(core: core, format: format, nodeName: toneNodeName,
                                           role: .playback(target: nodeName),
                                           properties: ["node.description": "pwrecord test speaker tone"],
                                           render: AudioProducerStream.sine(frequency: frequency, amplitude: amplitude))
        _ = try await tone.waitUntilReady()
        let deadline = ContinuousClock.now + .seconds(5)
        while tone.state != .streaming {
            if let cause = tone.endCause { throw .streamEnded(cause) }
            if ContinuousClock.now >= deadline { throw .timedOut("\(toneNodeName) to play into \(nodeName)") }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { throw .timedOut("\(toneNodeName) (cancelled)") }
        }
        return TestSpeaker(sink: sink, tone: tone)
    }

    /// Stops the tone, then destroys the sink.
    func stop() {
        tone.stop()
        sink.destroy()
    }
}
