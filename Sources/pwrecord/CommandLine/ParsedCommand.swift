/// What the parser found for one command: the command path, option values and positionals, all still
/// strings. Commands turn them into typed, validated values before doing anything.
struct ParsedCommand: Equatable, Sendable {
    var path: [String]
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var helpRequested = false
    var versionRequested = false

    func flag(_ long: String) -> Bool { flags.contains(long) }
    func value(_ long: String) -> String? { values[long]?.last }
    func all(_ long: String) -> [String] { values[long] ?? [] }

    /// A value converted by `transform`; a thrown message becomes an `invalidValue` usage error naming
    /// the option.
    func value<T>(_ long: String, _ transform: (String) throws(ValueError) -> T) throws(CommandLineError) -> T? {
        guard let raw = value(long) else { return nil }
        do { return try transform(raw) } catch {
            throw CommandLineError(reason: .invalidValue(option: "--\(long)", value: raw, reason: error.message),
                                   commandPath: path)
        }
    }

    func all<T>(_ long: String, _ transform: (String) throws(ValueError) -> T) throws(CommandLineError) -> [T] {
        var out: [T] = []
        for raw in all(long) {
            do { out.append(try transform(raw)) } catch {
                throw CommandLineError(reason: .invalidValue(option: "--\(long)", value: raw, reason: error.message),
                                       commandPath: path)
            }
        }
        return out
    }
}

/// Why a single value did not parse ("expected a number of seconds such as 5, 2m or 1h30m").
struct ValueError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
