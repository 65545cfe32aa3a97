import Foundation
import Testing
import PortalTestSupport
@testable import pwrecord

/// completions/pwrecord.bash: generated from the parser's command tree, checked in as generated, and it
/// really completes when bash calls it.
@Suite("Bash completion")
struct BashCompletionTests {
    static let script = "completions/pwrecord.bash"

    /// What `_pwrecord` puts in COMPREPLY for the words typed so far (the last one is where the cursor is),
    /// run in a clean bash from `folder`.
    static func complete(_ words: [String], in folder: String? = nil) throws -> [String] {
        let program = """
            source "$1" || exit 9
            shift
            \(folder.map { "cd \(BashCompletion.quoted($0)) || exit 8" } ?? "")
            COMP_WORDS=("$@")
            COMP_CWORD=$(( $# - 1 ))
            COMP_LINE="$*"
            _pwrecord
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let out = try MediaTool.runAny("/bin/bash", ["--norc", "--noprofile", "-c", program, "bash",
                                                     RepositoryFile.url(script).path] + words)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.isEmpty, "bash said: \(out.stderr)")
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("the checked-in file is exactly what 'pwrecord completion bash' prints")
    func checkedInFileIsGenerated() async throws {
        let generated = BashCompletion(root: PwrecordCommands.root).script
        let checkedIn = try RepositoryFile.text(Self.script)
        #expect(checkedIn == generated, "completions/pwrecord.bash is stale: run '.build/debug/pwrecord completion bash > completions/pwrecord.bash'")
        let r = try await Pwrecord.run(["completion", "bash"])
        #expect(r.status == 0)
        #expect(r.stdout == generated)
    }

    @Test("completion with an unknown shell is a usage error naming it")
    func unknownShell() async throws {
        let r = try await Pwrecord.run(["completion", "tcsh"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("'tcsh'") && r.stderr.contains("bash"))
    }

    @Test("bash accepts the script (bash -n)")
    func scriptParses() throws {
        let out = try MediaTool.runAny("/bin/bash", ["-n", RepositoryFile.url(Self.script).path])
        #expect(out.status == 0 && out.stderr.isEmpty, "\(out.stderr)")
    }

    @Test("a command is completed from its first letters", arguments: [
        (["pwrecord", "rec"], ["record"]),
        (["pwrecord", "s"], ["screenshot", "status", "sinks"]),
        (["pwrecord", "last", "s"], ["save"]),
        (["pwrecord", "policy", ""], ["check", "explain"]),
        (["pwrecord", "--mic", "re"], ["record"]),
    ])
    func commands(words: [String], expected: [String]) throws {
        #expect(try Self.complete(words) == expected)
    }

    @Test("an option is completed from its first letters", arguments: [
        (["pwrecord", "record", "--cu"], ["--cursor"]),
        (["pwrecord", "record", "--c"], ["--cursor", "--cfr", "--codec", "--container", "--crop"]),
        (["pwrecord", "record", "--fps", "30", "--m"], ["--mic", "--mask"]),
        (["pwrecord", "record", "-o", "x.mkv", "--du"], ["--duration"]),
        (["pwrecord", "screenshot", "--l"], ["--long"]),
        (["pwrecord", "--v"], ["--version"]),
    ])
    func options(words: [String], expected: [String]) throws {
        #expect(try Self.complete(words) == expected)
    }

    @Test("every command completes '--' to exactly its own long options", arguments: BashCompletion(root: PwrecordCommands.root).commands().map(\.path))
    func everyOptionIsOffered(path: [String]) throws {
        let spec = ArgumentParser(root: PwrecordCommands.root).spec(at: path)
        var expected = spec.options.map { "--\($0.long)" }
        if path.count == 1 { expected.append("--version") }
        expected.append("--help")
        #expect(try Self.complete(path + ["--"]).sorted() == expected.sorted())
    }

    @Test("an enumerated option's value completes to its choices, also after '='")
    func enumeratedValues() throws {
        #expect(try Self.complete(["pwrecord", "record", "--cursor", ""]) == ["hidden", "embedded", "metadata"])
        #expect(try Self.complete(["pwrecord", "record", "--cursor", "e"]) == ["embedded"])
        #expect(try Self.complete(["pwrecord", "record", "--codec", "="]) == PwrecordCommands.codecs)
        #expect(try Self.complete(["pwrecord", "record", "--container", "=", "w"]) == ["webm"])
        #expect(try Self.complete(["pwrecord", "completion", ""]) == ["bash"])
        // Every option with choices in the tree, whatever it is called.
        for (path, spec) in BashCompletion(root: PwrecordCommands.root).commands() {
            for option in spec.options where !option.domain.choices.isEmpty {
                #expect(try Self.complete(path + ["--\(option.long)", ""]) == option.domain.choices, "--\(option.long)")
            }
        }
    }

    @Test("a free-text value completes to nothing, so options are not offered as values")
    func freeTextValue() throws {
        #expect(try Self.complete(["pwrecord", "record", "--fps", ""]).isEmpty)
        #expect(try Self.complete(["pwrecord", "record", "--duration", "-"]).isEmpty)
    }

    @Test("-o, --output and file arguments complete to files")
    func files() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("clips"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["talk.mkv", "talk.mp4", "other.webm"] {
            #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data()))
        }
        #expect(try Self.complete(["pwrecord", "record", "-o", "ta"], in: dir.path).sorted() == ["talk.mkv", "talk.mp4"])
        #expect(try Self.complete(["pwrecord", "record", "--output", "cl"], in: dir.path) == ["clips"])
        #expect(try Self.complete(["pwrecord", "screenshot", "-o", "o"], in: dir.path) == ["other.webm"])
        #expect(try Self.complete(["pwrecord", "last", "save", "t"], in: dir.path).sorted() == ["talk.mkv", "talk.mp4"])
        #expect(try Self.complete(["pwrecord", "policy", "check", "o"], in: dir.path) == ["other.webm"])
        // One argument only: after it, options again.
        #expect(try Self.complete(["pwrecord", "last", "save", "talk.mkv", "--f"], in: dir.path) == ["--force"])
    }

    @Test("after '--' only arguments are completed")
    func afterDoubleDash() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("-odd.mkv").path, contents: Data()))
        #expect(try Self.complete(["pwrecord", "last", "save", "--", "-o"], in: dir.path) == ["-odd.mkv"])
    }
}
