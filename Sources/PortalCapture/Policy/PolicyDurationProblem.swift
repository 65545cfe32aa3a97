/// Why a duration could not be read; the text follows `bad duration '...' for 'key': `.
enum PolicyDurationProblem: Error, Equatable, CustomStringConvertible {
    case empty
    case expectedNumber(found: String)
    case missingUnit(after: String)
    case unknownUnit(String)
    case unitOrder
    case tooLarge
    case zeroNotAllowed

    var description: String {
        switch self {
        case .empty: "empty; use e.g. 30m or 1h30m"
        case .expectedNumber(let found): "expected a number, found '\(found)'; use e.g. 30m or 1h30m"
        case .missingUnit(let number): "missing unit after '\(number)'; use s, m, h or d (e.g. \(number)m)"
        case .unknownUnit(let unit): "unknown unit '\(unit)'; use s, m, h or d (e.g. 30m, 1h30m)"
        case .unitOrder: "units must go from largest to smallest, each once (e.g. 1h30m)"
        case .tooLarge: "too large (at most 36500d)"
        case .zeroNotAllowed: "must be longer than 0; to forbid recording write 'recording = deny'"
        }
    }
}
