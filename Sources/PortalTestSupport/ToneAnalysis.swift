import Foundation

/// Test support: how loud given tones are in a recording's samples, so a test can tell that a mix holds both
/// the test microphone's 440 Hz and the test speaker's 880 Hz (zero crossings only find the dominant one).
///
/// This is CPU work (a debug build does some 10^7 samples a second): tests that run it beside timing-sensitive
/// tests call it off Swift's cooperative pool (their `offThePool` / `onThread`), so it cannot delay their tasks.
public enum ToneAnalysis {
    /// The amplitude (0...1 for a full-scale sine) of the `frequency` component of `samples` at `rate`, by the
    /// Goertzel algorithm over the whole slice (a sine of amplitude A measures A when the slice holds whole
    /// periods; other tones a few Hz away from it measure near 0).
    public static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
        let n = samples.count
        guard n > 0, rate > 0 else { return 0 }
        let k = (Double(n) * frequency / Double(rate)).rounded()
        let coefficient = 2 * cos(2 * Double.pi * k / Double(n))
        var s1 = 0.0, s2 = 0.0
        samples.withUnsafeBufferPointer { buffer in
            for sample in buffer {
                let s0 = Double(sample) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * sqrt(max(power, 0)) / Double(n)
    }

    /// The frequency (whole Hz, in `range`) with the largest amplitude in `samples`: every 10 Hz over the first
    /// 0.1 s, then every 1 Hz within 10 Hz of the best over all of them. Give it whole seconds for 1 Hz bins.
    public static func dominantFrequency(in samples: ArraySlice<Float>, rate: Int, range: ClosedRange<Int> = 50...4000) -> Int {
        func loudest(_ candidates: some Sequence<Int>, in part: ArraySlice<Float>) -> Int {
            candidates.map { ($0, amplitude(of: Double($0), in: part, rate: rate)) }.max { $0.1 < $1.1 }?.0 ?? range.lowerBound
        }
        let coarse = loudest(stride(from: range.lowerBound, through: range.upperBound, by: 10), in: samples.prefix(rate / 10))
        return loudest(max(range.lowerBound, coarse - 10)...min(range.upperBound, coarse + 10), in: samples)
    }

    /// `amplitude(of:in:rate:)` in consecutive windows of `window` seconds (the last partial one left out).
    public static func amplitudes(of frequency: Double, in samples: [Float], rate: Int, window: Double = 0.1) -> [Double] {
        let size = max(1, Int(window * Double(rate)))
        return stride(from: 0, to: samples.count - size + 1, by: size).map {
            amplitude(of: frequency, in: samples[$0 ..< $0 + size], rate: rate)
        }
    }
}
