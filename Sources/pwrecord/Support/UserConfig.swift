import Foundation

/// The user's defaults, from `$XDG_CONFIG_HOME/pwrecord/config` (`~/.config/pwrecord/config`): plain
/// `key = value` lines, `#` comments. Keys: `codec`, `container`, `output-dir`. It only sets defaults for
/// options; it cannot loosen the policy. Unknown keys and bad values are reported and ignored.
struct UserConfig: Equatable {
    var codec: String?
    var container: String?
    var outputDirectory: String?
    var problems: [String] = []

    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> UserConfig {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.config")
        let path = base + "/pwrecord/config"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return UserConfig() }
        return parse(text, file: path)
    }

    static func parse(_ text: String, file: String) -> UserConfig {
        var config = UserConfig()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { config.problems.append("\(file):\(index + 1): expected key = value"); continue }
            switch (parts[0], parts[1]) {
            case ("codec", let v) where ["h264", "vp9", "av1", "ffv1"].contains(v): config.codec = v
            case ("container", let v) where ["mkv", "mp4", "webm"].contains(v): config.container = v
            case ("output-dir", let v) where v.hasPrefix("/") || v.hasPrefix("~"): config.outputDirectory = v
            case ("codec", _), ("container", _), ("output-dir", _):
                config.problems.append("\(file):\(index + 1): bad value '\(parts[1])' for '\(parts[0])'")
            default:
                config.problems.append("\(file):\(index + 1): unknown key '\(parts[0])' (known: codec, container, output-dir)")
            }
        }
        return config
    }
}
