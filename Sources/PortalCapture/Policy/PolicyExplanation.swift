import Foundation

/// A decision with the policy lines behind each part of it: what `pwrecord policy explain` prints.
public struct PolicyExplanation: Sendable, CustomStringConvertible {
    /// One key's effective value and the lines that made it; no lines means the built-in default.
    public struct Part: Sendable, Equatable {
        public let key: PolicyKey
        /// The effective value in policy notation, e.g. `deny`, `30m`, `mon-fri 16:00-18:00`, `any`.
        public let value: String
        /// The lines that made the value (several when layers or sections were combined).
        public let lines: [PolicySourceLine]
    }

    public let subject: PolicySubject
    public let date: Date
    public let timeZone: TimeZone
    /// The files read, in layer order.
    public let files: [String]
    public let decision: PolicyDecision
    /// One part per key, in `PolicyKey.allCases` order.
    public let parts: [Part]

    /// The part for one key.
    public func part(_ key: PolicyKey) -> Part? { parts.first { $0.key == key } }

    /// A readable report: who, when, available or not with reasons, then each key with its lines.
    public var description: String {
        var lines: [String] = []
        var who = "user \(subject.user)"
        if !subject.groups.isEmpty { who += " (groups: \(subject.groups.joined(separator: ", ")))" }
        if let app = subject.appID { who += ", app \(app)" }
        if let exe = subject.executable { who += ", exe \(exe)" }
        lines.append(who)
        lines.append("at \(Self.format(date, timeZone)) (\(timeZone.identifier))")
        lines.append("files: " + (files.isEmpty ? "none (no restrictions)" : files.joined(separator: ", ")))
        lines.append("recording is " + (decision.isAvailable ? "available" : "unavailable:"))
        lines += decision.reasons.map { "  \($0)" }
        for part in parts {
            var head = "\(part.key.rawValue) = \(part.value)"
            if part.key == .hours, let next = decision.nextChange { head += "  (next change \(Self.format(next, timeZone)))" }
            if part.lines.isEmpty { head += "  (not set: built-in default)" }
            lines.append(head)
            lines += part.lines.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ date: Date, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss ZZZZZ"
        return formatter.string(from: date)
    }
}
