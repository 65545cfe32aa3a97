import Foundation
import Testing
@testable import pwrecord

/// The README's quick start: two commands, which `.ci/run` runs in order as on a clean clone (CI is what
/// proves they work; this keeps the README, the scripts and CI saying the same thing).
@Suite("The README's quick start")
struct QuickStartTests {
    /// The commands of the first shell block under "## Quick start", without comments.
    static func quickStartCommands() throws -> [String] {
        let readme = try RepositoryFile.text("README.md")
        let section = try #require(readme.range(of: "\n## Quick start\n"), "no Quick start section")
        let block = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: block.upperBound..<readme.endIndex))
        return readme[block.upperBound..<end.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test("it has exactly two commands, the demo then the tests, both executable scripts of the repository")
    func twoCommands() throws {
        let commands = try Self.quickStartCommands()
        #expect(commands == ["scripts/demo", "scripts/test"])
        for command in commands {
            #expect(FileManager.default.isExecutableFile(atPath: RepositoryFile.url(command).path), "\(command) is not executable")
        }
    }

    @Test(".ci/run runs the two commands in the README's order, and checks the demo's file")
    func ciRunsThem() throws {
        let lines = try RepositoryFile.text(".ci/run").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") }
        // A command runs when a line starts with it, maybe after VAR=value assignments.
        func index(of command: String) -> Int? {
            lines.firstIndex { line in
                let words = line.split(separator: " ").drop { $0.contains("=") && !$0.hasPrefix("-") }
                return words.first.map(String.init) == command
            }
        }
        let commands = try Self.quickStartCommands()
        let positions = commands.map(index(of:))
        #expect(positions.allSatisfy { $0 != nil }, ".ci/run does not run \(zip(commands, positions).filter { $0.1 == nil }.map(\.0))")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "not in the README's order")
        #expect(lines.contains("export CI=true"))
        #expect(lines.contains { $0.hasPrefix("demo=pwrecord-demo.mkv") }, ".ci/run should check the demo's file")
    }

    @Test("the demo records what the README says (5 s with the microphone into ./pwrecord-demo.mkv) with options pwrecord accepts")
    func demoCommandIsValid() throws {
        let readme = try RepositoryFile.text("README.md")
        #expect(readme.contains("records a 5 s demo (screen + microphone) into ./pwrecord-demo.mkv"))
        let demo = try RepositoryFile.text("scripts/demo")
        #expect(demo.contains("out=\"$PWD/pwrecord-demo.mkv\""))
        let line = try #require(demo.split(separator: "\n").first { $0.hasPrefix("\"$bin/pwrecord\" record ") }, "no pwrecord record line")
        // The words after `record`, with the shell's "$out" and "$@" as they expand for the demo.
        let words = line.split(separator: " ").dropFirst(2).map(String.init)
            .filter { $0 != "\"$@\"" }.map { $0 == "\"$out\"" ? "/tmp/pwrecord-demo.mkv" : $0 }
        let parsed = try ArgumentParser(root: PwrecordCommands.root).parse(["record"] + words)
        let plan = try RecordCommand.plan(parsed, config: UserConfig())
        #expect(plan.options.maxDuration == 5)
        #expect(plan.options.microphone)
        #expect(plan.output?.lastPathComponent == "pwrecord-demo.mkv" && plan.options.container == "mkv")
    }
}
