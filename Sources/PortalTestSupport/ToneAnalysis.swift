import Foundation

/// Test support: how loud given tones are in a recording's samples, so a test can tell that a mix holds both
/// the test microphone's 440 Hz and the test speaker's 880 Hz (zero crossings only find the dominant one).
public enum ToneAnalysis {
    /// The amplitude (0...1 for a full-scale sine) of the `frequency` component of `samples` at `rate`, by the
    /// Goertzel algorithm over the whole slice (a sine of amplitude A measures A when the slice holds whole
    /// periods; other tones a few Hz away from it measure near 0).
    public static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
        let n = samples.count
        guard n > 0, rate > 0 else { return 0 }
        let k = (Double(n) * frequency / Double(rate)).rounded()
        let omega = 2 * Double.pi * k / Double(n)
        let coefficient = 2 * cos(omega)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * sqrt(max(power, 0)) / Double(n)
    }

    /// The frequency (whole Hz, in `range`) with the largest amplitude in `samples`: a scan every 10 Hz, then every
    /// 1 Hz around the best. Give it whole seconds of samples for 1 Hz bins.
    public static func dominantFrequency(in samples: ArraySlice<Float>, rate: Int, range: ClosedRange<Int> = 50...4000) -> Int {
        func loudest(_ candidates: some Sequence<Int>) -> Int {
            candidates.map { ($0, amplitude(of: Double($0), in: samples, rate: rate)) }.max { $0.1 < $1.1 }?.0 ?? range.lowerBound
        }
        let coarse = loudest(stride(from: range.lowerBound, through: range.upperBound, by: 10))
        return loudest(max(range.lowerBound, coarse - 10)...min(range.upperBound, coarse + 10))
    }

    /// `amplitude(of:in:rate:)` in consecutive windows of `window` seconds (the last partial one left out).
    public static func amplitudes(of frequency: Double, in samples: [Float], rate: Int, window: Double = 0.1) -> [Double] {
        let size = max(1, Int(window * Double(rate)))
        return stride(from: 0, to: samples.count - size + 1, by: size).map {
            amplitude(of: frequency, in: samples[$0 ..< $0 + size], rate: rate)
        }
    }
}
