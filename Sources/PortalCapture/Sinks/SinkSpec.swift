/// A sink named by id with its options, as written on the command line or in code:
/// `encoder:container=mkv,codec=h264,crf=23`.
///
/// Grammar: `id[:key=value[,key=value]...]`. The id is lowercase letters, digits, `-` and `_`. A value runs
/// to the next unescaped `,`; write `\,` for a comma and `\\` for a backslash inside a value. Keys are
/// case-sensitive and may appear once.
public struct SinkSpec: Sendable, Hashable, CustomStringConvertible {
    public var id: String
    /// The options in the order given.
    public var options: [(key: String, value: String)] {
        get { keys.map { ($0, values[$0]!) } }
    }
    private var keys: [String]
    private var values: [String: String]

    /// A spec from parts; keys must be distinct (a repeated key keeps its last value).
    public init(id: String, options: [(key: String, value: String)] = []) {
        self.id = id
        self.keys = []
        self.values = [:]
        for (k, v) in options { set(k, v) }
    }

    /// Parses `id[:key=value,...]`. Errors name the sink and the option at fault.
    public init(parsing text: String) throws(SinkError) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else {
            throw .invalidOption(sink: "", option: "", reason: "empty sink spec; write e.g. `encoder:container=mkv`")
        }
        let id: String, rest: Substring?
        if let colon = trimmed.firstIndex(of: ":") {
            id = String(trimmed[..<colon])
            rest = trimmed[trimmed.index(after: colon)...]
        } else {
            id = trimmed
            rest = nil
        }
        guard SinkSpec.isValidID(id) else {
            throw .invalidOption(sink: id, option: "", reason:
                "a sink id is lowercase letters, digits, '-' and '_' (write e.g. `encoder:crf=23`)")
        }
        self.init(id: id)
        guard let rest, !rest.isEmpty else { return }
        for item in try SinkSpec.splitItems(rest, sink: id) {
            guard let eq = item.firstIndex(of: "=") else {
                throw .invalidOption(sink: id, option: item, reason: "expected key=value")
            }
            let key = String(item[..<eq]).trimmingWhitespace()
            let value = String(item[item.index(after: eq)...])
            guard !key.isEmpty else {
                throw .invalidOption(sink: id, option: item, reason: "empty option name before '='")
            }
            guard values[key] == nil else {
                throw .invalidOption(sink: id, option: key, reason: "given more than once")
            }
            set(key, value)
        }
    }

    /// The value of `key`, or nil when not given.
    public subscript(key: String) -> String? { values[key] }

    /// Sets (or replaces) an option.
    public mutating func set(_ key: String, _ value: String) {
        if values[key] == nil { keys.append(key) }
        values[key] = value
    }

    /// The spec in its textual form; parsing it gives back an equal spec.
    public var description: String {
        guard !keys.isEmpty else { return id }
        let items = keys.map { key in
            let escaped = values[key]!.replacing("\\", with: "\\\\").replacing(",", with: "\\,")
            return "\(key)=\(escaped)"
        }
        return id + ":" + items.joined(separator: ",")
    }

    public static func == (a: SinkSpec, b: SinkSpec) -> Bool {
        a.id == b.id && a.values == b.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(values)
    }

    /// Whether `id` is a well-formed sink id.
    public static func isValidID(_ id: String) -> Bool {
        guard let first = id.utf8.first, id.utf8.count <= 64 else { return false }
        func ok(_ c: UInt8) -> Bool {
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
        return first != UInt8(ascii: "-") && id.utf8.allSatisfy(ok)
    }

    /// Splits on unescaped commas and resolves `\,` and `\\`.
    private static func splitItems(_ text: Substring, sink: String) throws(SinkError) -> [String] {
        var items: [String] = []
        var current = ""
        var escaping = false
        for ch in text {
            if escaping {
                guard ch == "," || ch == "\\" else {
                    throw .invalidOption(sink: sink, option: current, reason:
                        "unknown escape '\\\(ch)'; only '\\,' and '\\\\' are escapes")
                }
                current.append(ch)
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else if ch == "," {
                items.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        if escaping {
            throw .invalidOption(sink: sink, option: current, reason: "a trailing '\\' escapes nothing")
        }
        items.append(current)
        // `encoder:crf=23,` has an empty last item: tolerate one trailing comma, refuse empty items elsewhere.
        if items.last == "" && items.count > 1 { items.removeLast() }
        if let empty = items.firstIndex(where: { $0.isEmpty }) {
            throw .invalidOption(sink: sink, option: "", reason: "empty option at position \(empty + 1)")
        }
        return items
    }
}

extension String {
    /// The string without leading and trailing whitespace (Foundation-free).
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
