extension Duration {
    /// The longest duration a policy may name: 36500 days.
    static let policyMaximumSeconds: Int64 = 36_500 * 86_400

    /// Parses a policy duration: numbers with units `d`, `h`, `m`, `s`, largest first, each unit at most once,
    /// no spaces: `30s`, `30m`, `2h`, `1h30m`, `1d12h`, `0s`, `0`.
    static func parsePolicy(_ text: String) -> Result<Duration, PolicyDurationProblem> {
        if text == "0" { return .success(.zero) }
        let units: [(Character, Int64)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var nextUnit = 0  // index into `units` of the smallest unit still allowed
        var chars = Substring(text)
        if chars.isEmpty { return .failure(.empty) }
        while !chars.isEmpty {
            let digits = chars.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty else { return .failure(.expectedNumber(found: String(chars.first!))) }
            chars = chars.dropFirst(digits.count)
            guard let unit = chars.first else { return .failure(.missingUnit(after: String(digits))) }
            guard let index = units.firstIndex(where: { $0.0 == unit }) else {
                return .failure(.unknownUnit(String(unit)))
            }
            guard index >= nextUnit else { return .failure(.unitOrder) }
            nextUnit = index + 1
            chars = chars.dropFirst()
            guard digits.count <= 12, let value = Int64(digits) else { return .failure(.tooLarge) }
            total += value * units[index].1
            guard total <= policyMaximumSeconds else { return .failure(.tooLarge) }
        }
        return .success(.seconds(total))
    }

    /// The duration in the policy's own notation, e.g. `1h30m`, `45s`, `0s` (sub-second parts are dropped).
    var policyDescription: String {
        var seconds = components.seconds
        if seconds <= 0 { return "0s" }
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where seconds >= size {
            text += "\(seconds / size)\(unit)"
            seconds %= size
        }
        return text
    }
}
