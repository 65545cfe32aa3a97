import Foundation

/// Parsers for option values, each failing with a message that says what was expected.
enum ValueParsers {
    /// Seconds from `5`, `2.5`, `90s`, `2m`, `1h30m`, `1m30s`.
    static func duration(_ s: String) throws(ValueError) -> Double {
        let expected = ValueError("expected a duration such as 5, 2.5s, 2m or 1h30m")
        if let plain = Double(s), plain.isFinite { guard plain > 0 else { throw ValueError("must be greater than 0") }; return plain }
        var total = 0.0, number = "", sawUnit = false
        for ch in s {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let n = Double(number) else { throw expected }
            switch ch {
            case "h": total += n * 3600
            case "m": total += n * 60
            case "s": total += n
            default: throw expected
            }
            number = ""; sawUnit = true
        }
        guard sawUnit, number.isEmpty else { throw expected }
        guard total > 0 else { throw ValueError("must be greater than 0") }
        return total
    }

    /// A positive integer within `range`.
    static func integer(_ s: String, in range: ClosedRange<Int>) throws(ValueError) -> Int {
        guard let n = Int(s) else { throw ValueError("expected a whole number") }
        guard range.contains(n) else { throw ValueError("must be between \(range.lowerBound) and \(range.upperBound)") }
        return n
    }

    /// `X,Y,W,H` in pixels, width and height positive.
    static func rect(_ s: String) throws(ValueError) -> (x: Int, y: Int, width: Int, height: Int) {
        let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
            throw ValueError("expected X,Y,W,H in pixels, e.g. 0,0,640,480")
        }
        guard x >= 0, y >= 0 else { throw ValueError("X and Y must not be negative") }
        guard w > 0, h > 0 else { throw ValueError("W and H must be greater than 0") }
        return (x, y, w, h)
    }

    /// One of a fixed set of words.
    static func choice(_ s: String, _ choices: [String]) throws(ValueError) -> String {
        guard choices.contains(s) else { throw ValueError("expected one of \(choices.joined(separator: ", "))") }
        return s
    }
}

