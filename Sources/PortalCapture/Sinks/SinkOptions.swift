/// The options of one sink spec, checked against the sink's declared options, with typed accessors whose
/// errors name the sink and the option (`sink 'encoder': option 'crf': expected an integer in 0...51`).
public struct SinkOptions: Sendable {
    /// The sink these options are for.
    public let sink: String
    /// The values given in the spec (no defaults filled in).
    public let given: [String: String]
    private let declared: [String: SinkOptionInfo]

    /// Options for `sink` from `given`; throws `invalidOption` for a key not in `declared`, or a value that is
    /// not one of a choice option's values.
    public init(sink: String, given: [String: String], declared: [SinkOptionInfo]) throws(SinkError) {
        var table: [String: SinkOptionInfo] = [:]
        for info in declared { table[info.name] = info }
        for (key, value) in given {
            guard let info = table[key] else {
                let known = declared.map(\.name)
                throw .invalidOption(sink: sink, option: key, reason: known.isEmpty
                    ? "this sink takes no options"
                    : "unknown option; known options: \(known.joined(separator: ", "))")
            }
            if let choices = info.choices, !choices.contains(value) {
                throw .invalidOption(sink: sink, option: key, reason:
                    "'\(value)' is not one of \(choices.joined(separator: ", "))")
            }
        }
        self.sink = sink
        self.given = given
        self.declared = table
    }

    /// The given value, else the declared default.
    public func string(_ name: String) -> String? {
        given[name] ?? declared[name]?.defaultValue
    }

    /// An integer option within `range`; nil when neither given nor defaulted.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(SinkError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidOption(sink: sink, option: name, reason:
                "'\(text)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A decimal option within `range`.
    public func double(_ name: String, in range: ClosedRange<Double>) throws(SinkError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .invalidOption(sink: sink, option: name, reason:
                "'\(text)' is not a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A boolean option: `true/false`, `yes/no`, `1/0`, `on/off`.
    public func bool(_ name: String) throws(SinkError) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw .invalidOption(sink: sink, option: name, reason: "'\(text)' is not true or false")
        }
    }

    /// An option whose values name the cases of `T` (by raw value).
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws(SinkError) -> T?
    where T.RawValue == String {
        guard let text = string(name) else { return nil }
        guard let value = T(rawValue: text) else {
            throw .invalidOption(sink: sink, option: name, reason:
                "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// A frame rate written `30`, `30000/1001` or `29.97`: more than 0 and at most 1000 frames a second, a
    /// fraction's terms each at most 2^31 - 1 (what FFmpeg's rationals hold).
    public func frameRate(_ name: String) throws(SinkError) -> FrameRate? {
        guard let text = string(name) else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), case let rate = FrameRate(n, d),
           rate.fitsFFmpeg, rate.framesPerSecond <= 1000 {
            return rate
        }
        if parts.count == 1, let n = Int(text), (1...1000).contains(n) { return FrameRate(n, 1) }
        if parts.count == 1, let v = Double(text), v > 0, v <= 1000 {
            return FrameRate(Int((v * 1000).rounded()), 1000)
        }
        throw .invalidOption(sink: sink, option: name, reason: "'\(text)' is not a frame rate like 30 or 30000/1001")
    }
}
