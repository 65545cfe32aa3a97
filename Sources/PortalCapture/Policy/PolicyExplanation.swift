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
    /// One part per key, in `PolicyKey.allCases` order. While the policy has problems these are the values it
    /// fails closed to (nothing allowed), not what its lines say.
    public let parts: [Part]
    /// Whether the policy has problems, so nothing is allowed whatever its lines say.
    public let failedClosed: Bool
    /// Why the program asking cannot record although the policy's decision allows it (for `pwrecord record`: the
    /// policy's `sinks` leave out the encoder it writes through). Added by the caller; they make it unavailable.
    public var otherReasons: [String] = []

    /// Whether recording is available: the policy allows it and nothing else stands in the way.
    public var isAvailable: Bool { decision.isAvailable && otherReasons.isEmpty }

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
        lines.append("recording is " + (isAvailable ? "available" : "unavailable:"))
        lines += decision.reasons.map { "  \($0)" } + otherReasons.map { "  \($0)" }
        if failedClosed { lines.append("while the policy has problems, nothing is allowed:") }
        for part in parts {
            var head = "\(part.key.rawValue) = \(part.value)"
            if part.key == .hours, let next = decision.nextChange { head += "  (next change \(Self.format(next, timeZone)))" }
            if part.lines.isEmpty && !failedClosed { head += "  (not set: built-in default)" }
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
