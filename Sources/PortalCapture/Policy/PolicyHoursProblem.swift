/// Why an `hours` value could not be read; the text follows `bad hours '...': `.
enum PolicyHoursProblem: Error, Equatable, CustomStringConvertible {
    case emptyEntry
    case alwaysCombined
    case unknownDay(String)
    case missingRange(after: String)
    case expectedRange(String)
    case badTime(String)
    case hourOutOfRange(String)
    case minuteOutOfRange(String)
    case startAt24
    case emptyRange(String)
    case mixedDays

    var description: String {
        switch self {
        case .emptyEntry: "empty entry between commas"
        case .alwaysCombined: "'always' cannot be combined with other ranges"
        case .unknownDay(let day): "unknown day '\(day)'; use mon, tue, wed, thu, fri, sat, sun or a range like mon-fri"
        case .missingRange(let days): "missing time range after '\(days)', e.g. '\(days) 08:00-18:00'"
        case .expectedRange(let token): "expected a time range like 08:00-20:00, found '\(token)'"
        case .badTime(let token): "bad time '\(token)'; write times as HH:MM, e.g. 08:00"
        case .hourOutOfRange(let token): "time '\(token)' is out of range (00:00 to 24:00)"
        case .minuteOutOfRange(let token): "time '\(token)' has minutes past 59"
        case .startAt24: "a range cannot start at 24:00; use 00:00"
        case .emptyRange(let token): "empty range '\(token)'; use 00:00-24:00 for a whole day"
        case .mixedDays:
            "every range needs its days when any range names days (e.g. 'mon-fri 08:00-12:00, mon-fri 13:00-18:00')"
        }
    }
}
