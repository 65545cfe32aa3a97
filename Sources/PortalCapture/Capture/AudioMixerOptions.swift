/// How an `AudioMixer` mixes (options are values): `AudioMixerOptions().inputs(2).maximumWait(.milliseconds(100))`.
public struct AudioMixerOptions: Sendable, Hashable {
    /// How many sources are mixed; each chunk names its source, `0..<inputs`.
    public var inputs = 2
    /// The rate and channel count every source is converted to, and what comes out: 48 kHz stereo by default.
    /// The mix is always F32 (`outputFormat`). Sources must deliver at this rate (ask PipeWire for it: its
    /// converter resamples); chunks at another rate are refused and counted. Only the channel count and the
    /// sample format are converted here.
    public var format = AudioFormat()
    /// How far a source may fall behind the newest sample of any source before the mix goes on without it (its
    /// part is silence, and whatever it delivers later for that time is left out, counted). A suspended sink
    /// delivers nothing at all, so without this bound one quiet source would stall the mix for good.
    public var maximumWait: Duration = .milliseconds(100)
    /// How far a chunk's timestamp may disagree with where its source's previous chunk ended and still follow it
    /// directly (clock jitter). Beyond it, a later chunk leaves silence before it and an earlier one loses the
    /// samples that overlap what its source already delivered.
    public var tolerance: Duration = .milliseconds(10)

    public init() {}

    /// What the mixed chunks are: F32 at `format`'s rate and channel count.
    public var outputFormat: AudioFormat {
        AudioFormat(sampleFormat: .f32, sampleRate: max(1, format.sampleRate), channels: max(1, format.channels))
    }

    public func inputs(_ value: Int) -> Self { var c = self; c.inputs = value; return c }
    public func format(_ value: AudioFormat) -> Self { var c = self; c.format = value; return c }
    public func maximumWait(_ value: Duration) -> Self { var c = self; c.maximumWait = value; return c }
    public func tolerance(_ value: Duration) -> Self { var c = self; c.tolerance = value; return c }
}
