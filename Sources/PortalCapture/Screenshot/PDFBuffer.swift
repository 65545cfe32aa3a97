/// A PDF being written, as pieces: its own small byte runs and ranges of a PNG file's bytes (the IDAT
/// payloads, which become an image stream without being copied), with the byte offset of every object
/// for the cross-reference table (ISO 32000-1, 7.5: header, body, `xref`, `trailer`, `startxref`, `%%EOF`).
/// A stream's data may also go to the file directly (`beginStream`, `flush(to:)`, `endStream(written:)`).
struct PDFBuffer {
    enum Piece {
        case bytes([UInt8])
        case borrowed(Range<Int>)
    }

    /// The bytes that `.borrowed` pieces point into.
    let borrowed: [UInt8]
    private(set) var pieces: [Piece] = []
    private var pending: [UInt8] = []
    private var length = 0
    private var offsets: [Int: Int] = [:]

    init(borrowing bytes: [UInt8]) { borrowed = bytes }

    mutating func append(_ text: String) { append(Array(text.utf8)) }
    mutating func append(_ data: [UInt8]) { pending += data; length += data.count }

    /// `id 0 obj <body> endobj`.
    mutating func object(_ id: Int, _ body: String) {
        offsets[id] = length
        append("\(id) 0 obj\n\(body)\nendobj\n")
    }

    /// A stream object, `<< dictionary /Length n >> stream ... endstream`, whose data is `data`.
    mutating func stream(_ id: Int, dictionary: String, data: [UInt8]) {
        streamHeader(id, dictionary: dictionary, count: data.count)
        append(data)
        append("\nendstream\nendobj\n")
    }

    /// A stream object whose data is the `borrowed` bytes in `ranges`, in order.
    mutating func stream(_ id: Int, dictionary: String, borrowing ranges: [Range<Int>]) {
        streamHeader(id, dictionary: dictionary, count: ranges.reduce(0) { $0 + $1.count })
        pieces.append(.bytes(pending))
        pending = []
        for range in ranges {
            pieces.append(.borrowed(range))
            length += range.count
        }
        append("\nendstream\nendobj\n")
    }

    /// Starts a stream object whose data goes straight to the file: `flush(to:)` what comes before,
    /// write the data, then `endStream(written:)`. Its `/Length` is object `lengthObject`, added later.
    mutating func beginStream(_ id: Int, dictionary: String, lengthObject: Int) {
        offsets[id] = length
        append("\(id) 0 obj\n<< \(dictionary) /Length \(lengthObject) 0 R >>\nstream\n")
    }

    /// Counts the `count` bytes of stream data written to the file since `beginStream`, and ends the object.
    mutating func endStream(written count: Int) {
        length += count
        append("\nendstream\nendobj\n")
    }

    /// Writes what was added so far to `file` and drops it; offsets and the running length are kept.
    mutating func flush(to file: inout AtomicFile) throws(ScreenshotError) {
        try write(to: &file)
        pieces = []
        pending = []
    }

    private mutating func streamHeader(_ id: Int, dictionary: String, count: Int) {
        offsets[id] = length
        append("\(id) 0 obj\n<< \(dictionary)\(dictionary.isEmpty ? "" : " ")/Length \(count) >>\nstream\n")
    }

    /// The whole file as one array.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length)
        for piece in pieces {
            switch piece {
            case .bytes(let data): out += data
            case .borrowed(let range): out += borrowed[range]
            }
        }
        return out + pending
    }

    /// Writes every piece to `file`.
    func write(to file: inout AtomicFile) throws(ScreenshotError) {
        for piece in pieces {
            switch piece {
            case .bytes(let data): try file.write(data[...])
            case .borrowed(let range): try file.write(borrowed[range])
            }
        }
        try file.write(pending[...])
    }

    /// The cross-reference table (one 20-byte entry per object) and the trailer.
    mutating func finish(root: Int, info: Int) {
        let count = (offsets.keys.max() ?? 0) + 1
        let xref = length
        append("xref\n0 \(count)\n0000000000 65535 f \n")
        for id in 1..<count {
            let offset = String(offsets[id] ?? 0)
            append(String(repeating: "0", count: max(0, 10 - offset.count)) + offset + (offsets[id] == nil ? " 65535 f \n" : " 00000 n \n"))
        }
        append("trailer\n<< /Size \(count) /Root \(root) 0 R /Info \(info) 0 R >>\nstartxref\n\(xref)\n%%EOF\n")
    }

    /// A number as PDF writes reals: no exponent, at most 4 decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        let scaled = Int((value * 10_000).rounded())
        let sign = scaled < 0 ? "-" : ""
        let whole = abs(scaled) / 10_000, fraction = abs(scaled) % 10_000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 4 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }

    /// A text string: UTF-16BE with a byte order mark, in hex (`<FEFF...>`), which needs no escaping.
    static func text(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = Array("<FEFF".utf8)
        for unit in value.utf16 {
            for shift in [12, 8, 4, 0] { out.append(hex[Int(unit >> UInt16(shift)) & 15]) }
        }
        out.append(UInt8(ascii: ">"))
        return String(decoding: out, as: UTF8.self)
    }
}
