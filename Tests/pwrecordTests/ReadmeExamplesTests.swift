import Foundation
import Testing
@testable import pwrecord

/// The command lines the README and the man page show a user are ones pwrecord accepts, values included.
@Suite("The documented examples")
struct ReadmeExamplesTests {
    /// `pwrecord ...` lines of the shell blocks in the README's "Using pwrecord" section, without comments.
    static var readmeExamples: [String] {
        guard let readme = try? RepositoryFile.text("README.md"),
              let section = readme.range(of: "\n## Using pwrecord\n") else { return [] }
        let rest = readme[section.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return body.split(separator: "\n").map { line in
            String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]).trimmingCharacters(in: .whitespaces)
        }.filter { $0.hasPrefix("pwrecord ") }
    }

    /// `pwrecord ...` lines of the man page's EXAMPLES, a line ending in `\` joined with the next.
    static var manPageExamples: [String] {
        guard let source = try? RepositoryFile.text("docs/pwrecord.1"),
              let section = ManPageSource(source).section("EXAMPLES") else { return [] }
        var lines: [String] = []
        var continued = false
        for raw in section.lines where !raw.hasPrefix(".") {
            let line = ManPageSource.plain(raw).trimmingCharacters(in: .whitespaces)
            if continued { lines[lines.count - 1] += " " + line } else { lines.append(line) }
            continued = line.hasSuffix("\\")
            if continued { lines[lines.count - 1].removeLast() }
        }
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("pwrecord ") }
    }

    @Test("the README shows some, and the man page too")
    func found() {
        #expect(Self.readmeExamples.count >= 5, "\(Self.readmeExamples)")
        #expect(Self.manPageExamples.count >= 4, "\(Self.manPageExamples)")
    }

    @Test("each parses and its values pass validation", arguments: readmeExamples + manPageExamples)
    func parses(line: String) throws {
        let words = line.split(whereSeparator: \.isWhitespace).dropFirst().map(String.init)
        let parsed = try ArgumentParser(root: PwrecordCommands.root).parse(words)
        #expect(!parsed.helpRequested)
        switch parsed.path.dropFirst().joined(separator: " ") {
        case "record": _ = try RecordCommand.plan(parsed, config: UserConfig())
        case "policy explain":
            if let at = parsed.value("at") { _ = try PolicyCommands.parseTime(at, now: Date()) }
        default: break
        }
    }
}
