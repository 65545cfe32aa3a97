/// The RIFF/WAVE header for interleaved PCM: 16-bit integer (`WAVE_FORMAT_PCM`, 1) or 32-bit float
/// (`WAVE_FORMAT_IEEE_FLOAT`, 3), a 16-byte `fmt ` chunk, then `data`. 44 bytes.
struct WAVWriter {
    static let headerSize = 44
    /// Sizes written while recording, replaced when the file is finalized; readers treat them as
    /// "to the end of the file", so a file cut short by a crash still reads.
    static let unknownSize: UInt32 = 0xFFFF_FFFF

    let format: AudioFormat

    /// The header for `dataBytes` bytes of samples (nil: sizes unknown yet).
    func header(dataBytes: Int64?) -> [UInt8] {
        var h: [UInt8] = []
        h.reserveCapacity(WAVWriter.headerSize)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { h.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { h.append(contentsOf: $0) } }
        let data: UInt32 = dataBytes.map { UInt32(clamping: $0) } ?? WAVWriter.unknownSize
        let riff: UInt32 = dataBytes.map { UInt32(clamping: $0 + 36) } ?? WAVWriter.unknownSize
        h += Array("RIFF".utf8); u32(riff); h += Array("WAVE".utf8)
        h += Array("fmt ".utf8); u32(16)
        u16(format.sampleFormat == .f32 ? 3 : 1)
        u16(UInt16(format.channels))
        u32(UInt32(format.sampleRate))
        u32(UInt32(format.sampleRate * format.bytesPerFrame))
        u16(UInt16(format.bytesPerFrame))
        u16(UInt16(format.sampleFormat.bytesPerSample * 8))
        h += Array("data".utf8); u32(data)
        return h
    }
}
