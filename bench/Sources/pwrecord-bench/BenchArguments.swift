import Foundation

/// The options of one subcommand: `--name value` pairs and `--flag`s, checked against what the command takes.
struct BenchArguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (after the subcommand); `valued` and `flags` are the names the command accepts.
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String> = []) throws(BenchError) {
        var rest = arguments[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else { throw .usage("unexpected argument '\(word)'") }
            let name = String(word.dropFirst(2))
            if allowedFlags.contains(name) {
                flags.insert(name)
            } else if valued.contains(name) {
                guard let value = rest.popFirst() else { throw .usage("--\(name) needs a value") }
                values[name] = value
            } else {
                throw .usage("unknown option --\(name)")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func string(_ name: String) -> String? { values[name] }

    func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(BenchError) -> Int {
        guard let text = values[name] else { return value }
        guard let v = Int(text), range.contains(v) else {
            throw .usage("--\(name) \(text) (use a whole number in \(range.lowerBound)...\(range.upperBound))")
        }
        return v
    }

    func double(_ name: String, default value: Double, in range: ClosedRange<Double>) throws(BenchError) -> Double {
        guard let text = values[name] else { return value }
        guard let v = Double(text), range.contains(v) else {
            throw .usage("--\(name) \(text) (use a number in \(range.lowerBound)...\(range.upperBound))")
        }
        return v
    }
}
