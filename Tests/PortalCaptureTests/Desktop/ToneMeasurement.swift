import Foundation
import PortalTestSupport

/// Measures the pitch of a mono 16-bit PCM WAV file (as `pw-record --channels 1 --format s16` writes it)
/// by counting rising zero crossings, so a test can tell the test microphone's 440 Hz sine from silence.
struct ToneMeasurement: Sendable {
    /// Frames per second from the WAV header.
    var sampleRate: Int
    /// Samples after the leading silence (before WirePlumber linked the recorder there is none to hear).
    var audibleSamples: Int
    /// Estimated frequency in Hz, nil when there are fewer than two rising zero crossings.
    var frequency: Double?
    /// The largest absolute sample value, 0...32768.
    var peak: Int
    /// The loudest frequency in the audible part (whole Hz, by spectrum): unlike the zero-crossing count, it
    /// does not move when a loaded machine drops some of the tone's cycles.
    var dominantFrequency: Int

    enum Failure: Error, CustomStringConvertible {
        case notWAV(String)
        var description: String {
            switch self {
            case .notWAV(let why): "not a mono 16-bit PCM WAV file: \(why) (record with --channels 1 --format s16)"
            }
        }
    }

    init(wav data: Data) throws(Failure) {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw .notWAV("no RIFF/WAVE header")
        }
        var offset = 12
        var rate = 0, channels = 0, bits = 0
        var samples: ArraySlice<UInt8>?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt ", body + 16 <= bytes.count {
                channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14)
            } else if id == "data" {
                samples = bytes[body..<min(body + size, bytes.count)]
                break
            }
            offset = body + size + (size & 1)
        }
        guard channels == 1, bits == 16, rate > 0 else { throw .notWAV("\(channels) channel(s), \(bits) bits") }
        guard let pcm = samples else { throw .notWAV("no data chunk") }

        let values: [Int] = stride(from: pcm.startIndex, to: pcm.endIndex - 1, by: 2).map {
            Int(Int16(bitPattern: UInt16(pcm[$0]) | UInt16(pcm[$0 + 1]) << 8))
        }
        let firstSound = values.firstIndex { $0 != 0 } ?? values.count
        let audible = values[firstSound...]
        var crossings: [Int] = []
        var previous = audible.first ?? 0
        for (index, value) in zip(audible.indices, audible).dropFirst() {
            if previous < 0 && value >= 0 { crossings.append(index) }
            previous = value
        }
        sampleRate = rate
        audibleSamples = audible.count
        peak = audible.map { abs($0) }.max() ?? 0
        dominantFrequency = ToneAnalysis.dominantFrequency(in: ArraySlice(audible.map { Float($0) / 32768 }), rate: rate)
        if crossings.count >= 2, let first = crossings.first, let last = crossings.last, last > first {
            frequency = Double(crossings.count - 1) * Double(rate) / Double(last - first)
        } else {
            frequency = nil
        }
    }
}
