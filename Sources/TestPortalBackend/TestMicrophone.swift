import PortalCapture

/// The desktop's test microphone: an `AudioProducerStream` node named `test-mic` (`media.class`
/// Audio/Source) playing a 440 Hz sine at 48 kHz, stereo. It replaces PipeWire's audiotestsrc, which goes
/// silent after a few link/unlink cycles under load (docs/pipewire.md).
enum TestMicrophone {
    static let nodeName = "test-mic"
    static let frequency = 440.0
    static let format = AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2)

    /// Creates the node and waits until PipeWire announced it.
    static func start(on core: PipeWireCore) async throws(PipeWireError) -> AudioProducerStream {
        let stream = try AudioProducerStream(core: core, format: format, nodeName: nodeName,
                                             properties: ["node.description": "pwrecord test microphone"],
                                             render: AudioProducerStream.sine(frequency: frequency))
        _ = try await stream.waitUntilReady()
        return stream
    }
}
