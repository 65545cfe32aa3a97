import Foundation
import PortalCapture

/// Parsers for option values, each failing with a message that says what was expected.
enum ValueParsers {
    /// The longest duration accepted: a week.
    static let maximumDuration = 7 * 24 * 3600.0

    /// Seconds from `5`, `2.5`, `90s`, `2m`, `1h30m`, `1m30s`: plain decimal digits, or numbers each followed
    /// by a unit, the units in the order h, m, s and each at most once; greater than 0, at most a week.
    static func duration(_ s: String) throws(ValueError) -> Double {
        let expected = ValueError("expected a duration such as 5, 2.5s, 2m or 1h30m")
        func number(_ text: Substring) -> Double? {
            // Digits with at most one '.', and a digit somewhere: no sign, exponent, hex, inf or nan.
            guard !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
                  text.filter({ $0 == "." }).count <= 1, text.contains(where: { $0 != "." }) else { return nil }
            return Double(text)
        }
        var total = 0.0
        if let plain = number(Substring(s)) {
            total = plain
        } else {
            var rest = Substring(s), units: [Character] = ["h", "m", "s"]
            guard !rest.isEmpty else { throw expected }
            while !rest.isEmpty {
                guard let end = rest.firstIndex(where: { !("0"..."9").contains($0) && $0 != "." }),
                      let n = number(rest[..<end]), let unit = units.firstIndex(of: rest[end]) else { throw expected }
                total += n * [3600, 60, 1][["h", "m", "s"].firstIndex(of: rest[end])!]
                units.removeFirst(unit + 1)   // a later unit must be smaller
                rest = rest[rest.index(after: end)...]
            }
        }
        guard total > 0 else { throw ValueError("must be greater than 0") }
        guard total <= maximumDuration else { throw ValueError("must be at most a week (168h)") }
        return total
    }

    /// An app id (`--app-id`, `--app`): it names the kept recording's folder and policy `[app:ID]` sections.
    static func appID(_ s: String) throws(ValueError) -> String {
        guard RecordingStore.isValidAppID(s) else {
            throw ValueError("app id '\(s)' may hold only letters, digits, '.', '_' and '-', and may not start with '.'")
        }
        return s
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

