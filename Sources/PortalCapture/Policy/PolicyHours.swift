import Foundation

/// The weekly time windows in which recording is allowed, in the recording user's local time.
///
/// Written as `08:00-20:00` (every day), several ranges `08:00-12:00, 13:00-18:00`, or per weekday
/// `mon-fri 08:00-18:00, sat 10:00-12:00` (several ranges may follow one day spec: `sat 10:00-12:00 14:00-16:00`),
/// or `always`. Ranges are half-open: `08:00-20:00` includes 08:00:00 and ends just before 20:00:00. A range
/// whose end is not after its start crosses midnight: `fri 22:00-02:00` runs from Friday 22:00 to Saturday
/// 02:00, and `22:00-02:00` every night. `24:00` may end a range. When any range of a value names days, every
/// range of that value must (so `mon-fri 08:00-12:00, 13:00-18:00` is an error rather than silently meaning
/// 13:00-18:00 on weekends too).
public struct PolicyHours: Sendable, Hashable, CustomStringConvertible {
    static let minutesPerDay = 1_440
    static let minutesPerWeek = 7 * 1_440
    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Sorted, disjoint, non-touching ranges of minutes since Monday 00:00, within one week.
    let intervals: [Range<Int>]

    /// Every minute of every day.
    public static let always = PolicyHours(intervals: [0..<minutesPerWeek])
    /// No minute at all (the intersection of windows that do not overlap).
    public static let never = PolicyHours(intervals: [])

    init(intervals: [Range<Int>]) {
        var merged: [Range<Int>] = []
        for range in intervals.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.intervals = merged
    }

    public var isAlways: Bool { intervals == [0..<Self.minutesPerWeek] }
    public var isNever: Bool { intervals.isEmpty }

    /// The minutes in both windows.
    public func intersection(_ other: PolicyHours) -> PolicyHours {
        var result: [Range<Int>] = []
        var i = 0, j = 0
        while i < intervals.count && j < other.intervals.count {
            let a = intervals[i], b = other.intervals[j]
            let low = max(a.lowerBound, b.lowerBound), high = min(a.upperBound, b.upperBound)
            if low < high { result.append(low..<high) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        return PolicyHours(intervals: result)
    }

    func contains(minuteOfWeek minute: Int) -> Bool {
        let m = ((minute % Self.minutesPerWeek) + Self.minutesPerWeek) % Self.minutesPerWeek
        return intervals.contains { $0.contains(m) }
    }

    /// Whether `date`, read as local time in `timeZone`, is inside a window.
    public func contains(_ date: Date, in timeZone: TimeZone) -> Bool {
        contains(minuteOfWeek: Self.localMinute(of: date, calendar: Self.calendar(timeZone)).minuteOfWeek)
    }

    /// The minutes of the week at which being inside changes, ascending.
    var boundaries: [Int] {
        let points = Set(intervals.flatMap { [$0.lowerBound, $0.upperBound % Self.minutesPerWeek] })
        return points.filter { contains(minuteOfWeek: $0) != contains(minuteOfWeek: $0 - 1) }.sorted()
    }

    /// The first moment after `date` at which `contains` changes, in wall-clock time of `timeZone` (so daylight
    /// saving changes are honoured); nil when it never changes (`always`, `never`). A boundary that changes nothing
    /// is passed over: `02:00-03:00` does not exist on the day the clocks skip from 02:00 to 03:00, so nothing
    /// opens or closes then.
    ///
    /// A daylight saving change is a candidate too: when the clocks go back, the wall clock jumps back an hour
    /// and may leave a window (`02:30-04:00` at 02:45 summer time becomes 02:00 winter time) or enter one with
    /// no boundary's wall-clock time passing.
    public func nextBoundary(after date: Date, in timeZone: TimeZone) -> Date? {
        guard !boundaries.isEmpty else { return nil }
        let inside = contains(date, in: timeZone)
        var from = date
        for _ in 0..<(2 * boundaries.count + 4) {
            let wallClock = nextWallClockBoundary(after: from, in: timeZone)
            let transition = timeZone.nextDaylightSavingTimeTransition(after: from)
            guard let candidate = [wallClock, transition].compactMap({ $0 }).min() else { return nil }
            if contains(candidate, in: timeZone) != inside { return candidate }
            from = candidate
        }
        return from  // Not reached for real zones; at worst the decision is made again then and changes nothing.
    }

    /// The next moment after `date` whose wall-clock time is a boundary, whether or not it changes anything.
    func nextWallClockBoundary(after date: Date, in timeZone: TimeZone) -> Date? {
        let boundaries = self.boundaries
        guard let first = boundaries.first else { return nil }
        let calendar = Self.calendar(timeZone)
        let now = Self.localMinute(of: date, calendar: calendar)
        let target = boundaries.first(where: { $0 > now.minuteOfWeek }) ?? first + Self.minutesPerWeek
        let dayOffset = target / Self.minutesPerDay - now.minuteOfWeek / Self.minutesPerDay
        let minuteOfDay = target % Self.minutesPerDay
        if let day = calendar.date(byAdding: .day, value: dayOffset, to: calendar.startOfDay(for: date)),
           let boundary = calendar.date(bySettingHour: minuteOfDay / 60, minute: minuteOfDay % 60, second: 0, of: day),
           boundary > date {
            return boundary
        }
        // A wall-clock time that falls into a daylight-saving fold: count plain minutes instead.
        let seconds = Double((target - now.minuteOfWeek) * 60) - now.secondsIntoMinute
        return date.addingTimeInterval(max(seconds, 1))
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    static func localMinute(of date: Date, calendar: Calendar) -> (minuteOfWeek: Int, secondsIntoMinute: Double) {
        let c = calendar.dateComponents([.weekday, .hour, .minute, .second, .nanosecond], from: date)
        let day = ((c.weekday ?? 2) + 5) % 7  // Calendar: 1 = Sunday; here 0 = Monday
        let minute = day * minutesPerDay + (c.hour ?? 0) * 60 + (c.minute ?? 0)
        return (minute, Double(c.second ?? 0) + Double(c.nanosecond ?? 0) / 1e9)
    }

    // MARK: Text

    /// The canonical text: `always`, `never`, `08:00-20:00`, `22:00-02:00`, or `mon-fri 08:00-18:00, sat 10:00-12:00`.
    /// Parsing it gives the same hours back.
    public var description: String {
        if isAlways { return "always" }
        if isNever { return "never" }
        let days: [[Range<Int>]] = (0..<7).map { day in
            let dayRange = (day * Self.minutesPerDay)..<((day + 1) * Self.minutesPerDay)
            return intervals.compactMap { r in
                let low = max(r.lowerBound, dayRange.lowerBound), high = min(r.upperBound, dayRange.upperBound)
                return low < high ? (low - dayRange.lowerBound)..<(high - dayRange.lowerBound) : nil
            }
        }
        if Set(days).count == 1, let day = days.first {
            if day.count >= 2, day.first!.lowerBound == 0, day.last!.upperBound == Self.minutesPerDay {
                // Every night across midnight: write it as one range that crosses midnight.
                let crossing = Self.text(day.last!.lowerBound) + "-" + Self.text(day.first!.upperBound)
                return (day.dropFirst().dropLast().map(Self.text) + [crossing]).joined(separator: ", ")
            }
            return day.map(Self.text).joined(separator: ", ")
        }
        var parts: [String] = []
        var start = 0
        while start < 7 {
            var end = start
            while end + 1 < 7 && days[end + 1] == days[start] { end += 1 }
            if !days[start].isEmpty {
                let spec = start == end ? Self.dayNames[start] : "\(Self.dayNames[start])-\(Self.dayNames[end])"
                parts.append(spec + " " + days[start].map(Self.text).joined(separator: " "))
            }
            start = end + 1
        }
        return parts.joined(separator: ", ")
    }

    static func text(_ range: Range<Int>) -> String { text(range.lowerBound) + "-" + text(range.upperBound) }

    static func text(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// Parses an `hours` value; the problem's text follows `bad hours '...': `.
    static func parse(_ text: String) -> Result<PolicyHours, PolicyHoursProblem> {
        let value = text.trimmingCharacters(in: .whitespaces)
        if value == "always" { return .success(.always) }
        var minutes: [Range<Int>] = []
        var itemsWithDays = 0, itemsWithoutDays = 0
        for item in value.split(separator: ",", omittingEmptySubsequences: false) {
            var tokens = item.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let first = tokens.first else { return .failure(.emptyEntry) }
            if first == "always" { return .failure(.alwaysCombined) }
            var days = Array(0..<7)
            if first.first?.isLetter == true {
                switch parseDays(first) {
                case .success(let parsed): days = parsed
                case .failure(let problem): return .failure(problem)
                }
                tokens.removeFirst()
                guard !tokens.isEmpty else { return .failure(.missingRange(after: first)) }
                itemsWithDays += 1
            } else {
                itemsWithoutDays += 1
            }
            for token in tokens {
                let range: (start: Int, end: Int)
                switch parseRange(token) {
                case .success(let parsed): range = parsed
                case .failure(let problem): return .failure(problem)
                }
                for day in days {
                    let start = day * minutesPerDay + range.start
                    var end = day * minutesPerDay + range.end
                    if range.end <= range.start { end += minutesPerDay }  // crosses midnight into the next day
                    if end <= minutesPerWeek {
                        minutes.append(start..<end)
                    } else {  // Sunday night into Monday morning wraps to the start of the week
                        minutes.append(start..<minutesPerWeek)
                        minutes.append(0..<(end - minutesPerWeek))
                    }
                }
            }
        }
        if itemsWithDays > 0 && itemsWithoutDays > 0 { return .failure(.mixedDays) }
        return .success(PolicyHours(intervals: minutes))
    }

    static func parseDays(_ token: String) -> Result<[Int], PolicyHoursProblem> {
        let names = token.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard names.count <= 2 else { return .failure(.unknownDay(token)) }
        var indices: [Int] = []
        for name in names {
            guard let index = dayNames.firstIndex(of: name) else { return .failure(.unknownDay(name)) }
            indices.append(index)
        }
        if indices.count == 1 { return .success(indices) }
        var days: [Int] = []
        var day = indices[0]
        while true {  // `fri-mon` wraps through the weekend
            days.append(day)
            if day == indices[1] { break }
            day = (day + 1) % 7
        }
        return .success(days)
    }

    static func parseRange(_ token: String) -> Result<(start: Int, end: Int), PolicyHoursProblem> {
        let ends = token.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2 else { return .failure(.expectedRange(token)) }
        let start: Int, end: Int
        switch parseTime(ends[0]) {
        case .success(let t): start = t
        case .failure(let problem): return .failure(problem)
        }
        switch parseTime(ends[1]) {
        case .success(let t): end = t
        case .failure(let problem): return .failure(problem)
        }
        if start == minutesPerDay { return .failure(.startAt24) }
        if start == end { return .failure(.emptyRange(token)) }
        return .success((start, end))
    }

    static func parseTime(_ token: String) -> Result<Int, PolicyHoursProblem> {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
              let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return .failure(.badTime(token)) }
        guard hour <= 24 else { return .failure(.hourOutOfRange(token)) }
        guard minute <= 59 else { return .failure(.minuteOutOfRange(token)) }
        guard hour < 24 || minute == 0 else { return .failure(.hourOutOfRange(token)) }
        return .success(hour * 60 + minute)
    }
}
