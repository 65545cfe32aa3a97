import Foundation
import Testing
import PortalCapture
import PortalTestSupport
@testable import pwrecord

/// docs/pwrecord.1 is well formed and documents everything the parser knows: a new command, option,
/// default or choice without its documentation fails here.
@Suite("The man page")
struct ManPageTests {
    let source: String
    let page: ManPageSource

    init() throws {
        source = try RepositoryFile.text("docs/pwrecord.1")
        page = ManPageSource(source)
    }

    /// Every command below the root with its path, e.g. `pwrecord policy explain`.
    static var commands: [(name: String, spec: CommandSpec)] {
        BashCompletion(root: PwrecordCommands.root).commands().dropFirst().map { ($0.path.joined(separator: " "), $0.spec) }
    }

    @Test("groff renders it with every warning enabled and prints none")
    func rendersWithoutWarnings() throws {
        let groff = try #require(RepositoryFile.tool("groff"), "groff is missing: scripts/setup installs groff-base")
        let out = try MediaTool.runAny(groff, ["-man", "-Tutf8", "-ww", "-z", RepositoryFile.url("docs/pwrecord.1").path])
        #expect(out.status == 0)
        #expect(out.stderr.isEmpty, "groff warned:\n\(out.stderr)")
    }

    @Test("man -l shows it, and the page names every section a manual page needs")
    func manShowsIt() throws {
        let man = try #require(RepositoryFile.tool("man"), "man is missing: scripts/setup installs man-db")
        let out = try MediaTool.runAny("/usr/bin/env", ["MANWIDTH=80", "MAN_KEEP_FORMATTING=0", man, "--warnings", "-l",
                                                        RepositoryFile.url("docs/pwrecord.1").path])
        #expect(out.status == 0)
        #expect(out.stderr.isEmpty, "man warned:\n\(out.stderr)")
        // Without a terminal, man may still embolden by overstriking ("N\bN"): drop what a backspace erases.
        var text = ""
        for ch in String(decoding: out.stdout, as: UTF8.self) {
            if ch == "\u{8}" { if !text.isEmpty { text.removeLast() } } else { text.append(ch) }
        }
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "SIGNALS", "EXIT STATUS", "FILES",
                        "ENVIRONMENT", "EXAMPLES", "SEE ALSO"] {
            #expect(page.section(heading) != nil, "no .SH \(heading)")
            #expect(text.contains("\n\(heading)\n"), "man's output has no \(heading) heading")
        }
    }

    @Test("its title names the version pwrecord --version prints")
    func titleHasTheVersion() {
        #expect(page.title.count == 5)
        #expect(page.title.first == "PWRECORD" && page.title.dropFirst().first == "1")
        #expect(page.title.dropFirst(3).first == "pwrecord \(PwrecordCommands.version)")
    }

    @Test("every command has its own subsection under COMMANDS", arguments: commands.map(\.name))
    func everyCommandHasASubsection(name: String) {
        #expect(page.subsection(name) != nil, "docs/pwrecord.1 has no '.SS \"\(name)\"'")
        let command = name.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        #expect(page.section("SYNOPSIS").map { Self.words($0.text).contains(command) } == true, "SYNOPSIS lacks \(command)")
    }

    @Test("every option of every command is documented in that command's subsection, with its short name, default and choices",
          arguments: commands.map(\.name))
    func everyOptionIsDocumented(name: String) throws {
        let spec = try #require(Self.commands.first { $0.name == name }?.spec)
        let section = try #require(page.subsection(name), "no subsection for \(name)")
        let entries = section.entries
        for option in spec.options {
            guard let entry = entries.first(where: { $0.optionNames.contains("--\(option.long)") }) else {
                Issue.record("docs/pwrecord.1 does not document --\(option.long) of '\(name)'")
                continue
            }
            if let short = option.short {
                #expect(entry.optionNames.contains("-\(short)"), "'\(name)': the entry of --\(option.long) does not name -\(short)")
            }
            if case .value(let valueName) = option.kind {
                #expect(entry.tag.contains(valueName), "'\(name)': the entry of --\(option.long) does not name its value <\(valueName)>")
            }
            if let value = option.defaultValue {
                #expect(entry.text.contains("Default: \(value)"), "'\(name)': --\(option.long) does not say 'Default: \(value)'")
            }
            for choice in option.domain.choices {
                #expect(Self.words(entry.text).contains(choice), "'\(name)': --\(option.long) does not mention \(choice)")
            }
            if option.repeatable {
                #expect(entry.text.contains("May be repeated"), "'\(name)': --\(option.long) does not say it may be repeated")
            }
        }
        for positional in spec.positionals {
            let entry = entries.first { $0.tag == positional.name }
            #expect(entry != nil, "docs/pwrecord.1 does not document <\(positional.name)> of '\(name)'")
            for choice in positional.domain.choices {
                let words = Self.words(entry?.text ?? "")
                #expect(words.contains(choice), "'\(name)': <\(positional.name)> does not mention \(choice)")
            }
        }
    }

    @Test("it documents no option a command does not have", arguments: commands.map(\.name))
    func noStaleOptions(name: String) throws {
        let spec = try #require(Self.commands.first { $0.name == name }?.spec)
        let known = Set(spec.options.flatMap { ["--\($0.long)"] + ($0.short.map { ["-\($0)"] } ?? []) })
        for entry in page.subsection(name)?.entries ?? [] {
            for option in entry.optionNames {
                #expect(known.contains(option), "docs/pwrecord.1 documents \(option) under '\(name)', which has no such option")
            }
            if entry.optionNames.isEmpty {
                #expect(spec.positionals.contains { $0.name == entry.tag }, "'\(name)' has no argument <\(entry.tag)>")
            }
        }
    }

    @Test("--help, -h and --version are documented under OPTIONS")
    func globalOptions() throws {
        let names = try #require(page.section("OPTIONS")).entries.flatMap(\.optionNames)
        for option in ["--help", "-h", "--version"] { #expect(names.contains(option), "OPTIONS lacks \(option)") }
    }

    @Test("EXIT STATUS lists every exit code with its meaning")
    func exitCodes() throws {
        let entries = try #require(page.section("EXIT STATUS")).entries
        #expect(entries.map(\.tag) == ExitCode.allCases.map { String($0.rawValue) })
        let words: [ExitCode: String] = [.success: "Success", .failure: "Failure", .usage: "Usage error", .declined: "Declined",
                                         .disabledByPolicy: "Disabled", .unavailable: "Unavailable", .notPermitted: "Not permitted"]
        for code in ExitCode.allCases {
            let text = entries.first { $0.tag == String(code.rawValue) }?.text ?? ""
            #expect(text.hasPrefix(words[code] ?? "?"), "exit \(code.rawValue): '\(text)'")
        }
    }

    @Test("SIGNALS names every signal pwrecord handles and what it does")
    func signals() throws {
        let entries = try #require(page.section("SIGNALS")).entries
        let verbs: [StopSignals.Signal: String] = [.stop: "Stop", .pause: "Pause", .resume: "Resume"]
        for (name, _, meaning) in StopSignals.handled {
            let entry = entries.first { Self.words($0.tag).contains(name) }
            #expect(entry != nil, "SIGNALS does not list \(name)")
            #expect(entry?.text.hasPrefix(verbs[meaning]!) == true, "\(name) should say '\(verbs[meaning]!)': '\(entry?.text ?? "")'")
        }
    }

    @Test("FILES names the config file with each of its keys, the policy files, every plugin folder and the state folder")
    func files() throws {
        let files = try #require(page.section("FILES"))
        let tags = files.entries.map(\.tag).joined(separator: " ")
        let config = UserConfig.path(environment: ["XDG_CONFIG_HOME": "/XDG"]).replacingOccurrences(of: "/XDG", with: "$XDG_CONFIG_HOME")
        #expect(tags.contains(config))
        for key in UserConfig.keys { #expect(files.entries.contains { $0.tag == key }, "FILES does not explain the config key \(key)") }
        #expect(tags.contains(PolicyLocations.defaultSystemDirectory + "/policy.conf"))
        #expect(tags.contains(PolicyLocations.defaultSystemDirectory + "/policy.d/*.conf"))
        #expect(tags.contains("$XDG_CONFIG_HOME/pwrecord/policy.conf"))
        for dir in PluginLoader.defaultDirectories(home: "~") { #expect(Self.words(tags).contains(dir), "FILES lacks \(dir)") }
        #expect(tags.contains("$XDG_STATE_HOME/pwrecord"))
    }

    @Test("ENVIRONMENT explains the variables pwrecord reads")
    func environment() throws {
        let tags = try #require(page.section("ENVIRONMENT")).entries.map(\.tag)
        for variable in ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            #expect(tags.contains(variable), "ENVIRONMENT lacks \(variable)")
        }
    }

    static func words(_ text: String) -> Set<String> {
        Set(text.split(whereSeparator: { " ,;:()[]|\"".contains($0) }).map { word in
            var w = Substring(word)
            while w.last == "." { w = w.dropLast() }
            return String(w)
        })
    }
}
