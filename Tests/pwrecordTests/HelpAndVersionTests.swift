import Foundation
import Testing
@testable import pwrecord

/// `--version`, `--help`, `help <command>` and the exit codes they list, through the binary.
@Suite("pwrecord --help and --version")
struct HelpAndVersionTests {
    /// Every command path below the root, e.g. `["last", "save"]`.
    static var commandPaths: [[String]] {
        BashCompletion(root: PwrecordCommands.root).commands().dropFirst().map { Array($0.path.dropFirst()) }
    }

    @Test("--version prints the version and exits 0")
    func version() async throws {
        let r = try await Pwrecord.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout == "pwrecord \(PwrecordCommands.version)\n")
        #expect(r.stderr.isEmpty)
    }

    @Test("--version after a command is a usage error naming it")
    func versionOnlyAtTheRoot() async throws {
        let r = try await Pwrecord.run(["record", "--version"])
        #expect(r.status == 2)
        #expect(r.stderr == "pwrecord: error: unknown option '--version'\npwrecord: hint: see 'pwrecord record --help'\n")
    }

    @Test("--help, -h, help and no arguments print the overview with every command and the exit codes, and exit 0")
    func rootHelp() async throws {
        var outputs: [Pwrecord.Result] = []
        for arguments in [["--help"], ["-h"], ["help"], []] { outputs.append(try await Pwrecord.run(arguments)) }
        for r in outputs {
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            #expect(r.stdout == outputs[0].stdout)
        }
        let help = outputs[0].stdout
        #expect(help.hasPrefix("OVERVIEW: \(PwrecordCommands.root.abstract)\n"))
        #expect(help.contains("USAGE: pwrecord <subcommand>"))
        for command in PwrecordCommands.root.subcommands {
            #expect(help.contains("  \(command.name) ") && help.contains(command.abstract), "no \(command.name) in the help")
        }
        #expect(help.contains("--version"))
        #expect(Self.exitCodes(in: help) == ExitCode.allCases.map { "\($0.rawValue)  \($0.meaning)" }, "\(help)")
    }

    @Test("every command's --help exits 0 with its usage and each option with its default; help <command> prints the same",
          arguments: commandPaths)
    func commandHelp(path: [String]) async throws {
        let spec = ArgumentParser(root: PwrecordCommands.root).spec(at: ["pwrecord"] + path)
        let r = try await Pwrecord.run(path + ["--help"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("OVERVIEW: \(spec.abstract)\n"))
        #expect(r.stdout.contains("USAGE: pwrecord \(path.joined(separator: " "))"), "\(r.stdout)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for option in spec.options {
            let line = lines.first { $0.hasPrefix("  " + option.synopsis) }
            #expect(line != nil, "no line for \(option.synopsis)")
            if let d = option.defaultValue {
                #expect(line?.contains("(default: \(d))") == true, "\(option.synopsis) does not show its default: \(line ?? "")")
            }
        }
        for positional in spec.positionals { #expect(r.stdout.contains("<\(positional.name)>")) }
        for sub in spec.subcommands { #expect(lines.contains { $0.hasPrefix("  \(sub.name) ") }, "no \(sub.name)") }
        // The top-level commands list the exit codes too.
        if path.count == 1 {
            #expect(Self.exitCodes(in: r.stdout) == ExitCode.allCases.map { "\($0.rawValue)  \($0.meaning)" }, "\(r.stdout)")
        }
        let viaHelp = try await Pwrecord.run(["help"] + path)
        #expect(viaHelp.status == 0 && viaHelp.stdout == r.stdout, "\(viaHelp.stderr)")
    }

    @Test("help with an unknown command is a usage error naming it")
    func helpUnknownCommand() async throws {
        let r = try await Pwrecord.run(["help", "recrod"])
        #expect(r.status == 2)
        #expect(r.stderr == "pwrecord: error: unknown command 'recrod'\npwrecord: hint: see 'pwrecord --help'\n")
    }

    @Test("the README lists the exit codes 0 to 6 with the meanings the help gives")
    func readmeExitCodes() throws {
        let readme = try RepositoryFile.text("README.md").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let start = try #require(readme.range(of: "Exit codes: "), "the README has no 'Exit codes:'")
        let sentence = readme[start.upperBound...].prefix { $0 != "." }
        // "0 ok, 1 failure, 2 usage error, 3 declined by the user, 4 disabled by the policy, 5 unavailable (...), 6 not
        // permitted by the desktop's privacy settings (...)"
        let items = sentence.split(separator: ", ").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(items.map { $0.prefix { $0.isNumber } } == ExitCode.allCases.map { "\($0.rawValue)" }, "\(items)")
        let keyWords: [ExitCode: String] = [.success: "ok", .failure: "failure", .usage: "usage", .declined: "declined",
                                            .disabledByPolicy: "policy", .unavailable: "unavailable", .notPermitted: "desktop"]
        for (item, code) in zip(items, ExitCode.allCases) {
            let word = try #require(keyWords[code])
            #expect(item.contains(word), "README: '\(item)' should say \(word)")
            #expect(code.meaning.contains(word) || (code == .success && code.meaning == "success"), "help: '\(code.meaning)'")
        }
    }

    /// The `N  meaning` lines under `EXIT CODES:`.
    static func exitCodes(in help: String) -> [String] {
        guard let range = help.range(of: "EXIT CODES:\n") else { return [] }
        return help[range.upperBound...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
