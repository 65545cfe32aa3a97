import Foundation

/// The user's defaults, from `$XDG_CONFIG_HOME/pwrecord/config` (`~/.config/pwrecord/config`): plain
/// `key = value` lines, `#` comments. Keys: `codec`, `container`, `output-dir`. It only sets defaults that
/// command-line options override; it cannot loosen the policy. A line that is wrong is a usage error
/// (`file:line: what is wrong`, exit 2) for the commands that read the file: nothing is guessed.
struct UserConfig: Equatable {
    var codec: String?
    var container: String?
    /// Where output files named without a folder (`-o talk.mkv`) go, instead of the current folder.
    var outputDirectory: String?
    /// Every wrong line, in file order; empty when the file is fine or absent.
    var problems: [UserConfigError] = []
    /// `file:line` of each key set, to say where a value came from (not part of equality).
    var origins: [String: String] = [:]

    static func == (a: UserConfig, b: UserConfig) -> Bool {
        a.codec == b.codec && a.container == b.container && a.outputDirectory == b.outputDirectory && a.problems == b.problems
    }

    static let keys = ["codec", "container", "output-dir"]

    /// `$XDG_CONFIG_HOME/pwrecord/config` (an absolute `XDG_CONFIG_HOME` only, as the XDG spec says), else
    /// `~/.config/pwrecord/config`.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (home(environment) + "/.config")
        return base + "/pwrecord/config"
    }

    /// The file's settings; no file means no settings. A file that exists but cannot be read is a problem.
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> UserConfig {
        let path = path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return UserConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            return UserConfig(problems: [UserConfigError(file: path, line: nil, reason: "cannot be read (check its permissions)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return UserConfig(problems: [UserConfigError(file: path, line: nil, reason: "is not UTF-8 text")])
        }
        return parse(text, file: path, home: home(environment))
    }

    static func parse(_ text: String, file: String, home: String = home(ProcessInfo.processInfo.environment)) -> UserConfig {
        var config = UserConfig()
        var seen: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func problem(_ reason: String) { config.problems.append(UserConfigError(file: file, line: index + 1, reason: reason)) }
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else { problem("expected 'key = value'"); continue }
            let (key, value) = (parts[0], parts[1])
            // A valid value for a key already set is a wrong line (the first stays), as in the policy file.
            func claim() -> Bool {
                if let first = seen[key] { problem("'\(key)' is already set on line \(first)"); return false }
                seen[key] = index + 1
                config.origins[key] = "\(file):\(index + 1)"
                return true
            }
            switch key {
            case "codec":
                guard PwrecordCommands.codecs.contains(value) else {
                    problem("bad codec '\(value)' (expected one of \(PwrecordCommands.codecs.joined(separator: ", ")))"); continue
                }
                if claim() { config.codec = value }
            case "container":
                guard PwrecordCommands.containers.contains(value) else {
                    problem("bad container '\(value)' (expected one of \(PwrecordCommands.containers.joined(separator: ", ")))"); continue
                }
                if claim() { config.container = value }
            case "output-dir":
                if value == "~" || value.hasPrefix("~/") {
                    if claim() { config.outputDirectory = home + value.dropFirst() }
                } else if value.hasPrefix("/") {
                    if claim() { config.outputDirectory = value }
                } else {
                    problem("output-dir must be an absolute folder or start with ~/ (got '\(value)')")
                }
            default:
                problem("unknown key '\(key)' (known: \(keys.joined(separator: ", ")))")
            }
        }
        return config
    }

    /// Where a file named on the command line goes: a bare name (no `/`) into `output-dir` when set, else
    /// the current folder; a path with a folder (`./x.mkv`, `clips/x.mkv`, `/tmp/x.mkv`) as given.
    func outputURL(for path: String, currentDirectory: String = FileManager.default.currentDirectoryPath) -> URL {
        let base: String
        if path.hasPrefix("/") {
            return URL(fileURLWithPath: path).standardizedFileURL
        } else if !path.contains("/"), let outputDirectory {
            base = outputDirectory
        } else {
            base = currentDirectory
        }
        return URL(fileURLWithPath: base + "/" + path).standardizedFileURL
    }

    private static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? FileManager.default.homeDirectoryForCurrentUser.path
    }
}

/// One wrong line of the user's config file, shown as `file:line: what is wrong`.
struct UserConfigError: Error, Equatable, CustomStringConvertible {
    var file: String
    /// 1-based; nil when the whole file is the problem (unreadable, not text).
    var line: Int?
    var reason: String

    var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)" }
    var hint: String {
        line == nil ? "make \(file) a readable UTF-8 text file, or remove it; see 'man pwrecord'"
            : "fix or remove that line in \(file) (keys: \(UserConfig.keys.joined(separator: ", "))); see 'man pwrecord'"
    }
}
