import Foundation

/// One parsed policy file: its sections in file order, and everything wrong with it.
///
/// Parsing never stops at the first problem, so `pwrecord policy check` can list them all; a document with
/// problems makes every decision built from it unavailable (fail closed).
///
/// Syntax: one `[section]` header or `key = value` per line; blank lines are ignored; `#` starts a comment at
/// the start of a line or after whitespace (so `a#b` keeps its `#`). Keys and values are case-sensitive.
public struct PolicyDocument: Sendable {
    /// The file name used in messages (`file:line: ...`).
    public let file: String
    /// Everything wrong with the text, in line order. Empty when the file is valid.
    public let problems: [PolicyError]
    /// The valid sections, in file order.
    let sections: [Entry]

    struct Entry: Sendable {
        let section: PolicySection
        let line: Int
        var settings: PolicySettings
    }

    public var isValid: Bool { problems.isEmpty }

    /// The section headers of the file, in order.
    public var sectionHeaders: [PolicySection] { sections.map(\.section) }

    init(file: String, problems: [PolicyError], sections: [Entry]) {
        self.file = file
        self.problems = problems
        self.sections = sections
    }

    /// Parses the text of a policy file; `file` names it in messages.
    public static func parse(_ text: String, file: String) -> PolicyDocument {
        var problems: [PolicyError] = []
        var entries: [Entry] = []
        var firstHeaderLine: [PolicySection: Int] = [:]
        // The section keys go to: an index into `entries`, or nil before any header. A bad or duplicate header
        // opens a "discarded" section whose keys are still checked but not kept.
        var current: Int? = nil
        var discarded: PolicySettings? = nil
        var inSection = false
        var keyLines: [String: Int] = [:]
        var currentName = ""

        // Lines end at `\n` only, as editors, grep -n and sed count them (`\r\n` is one Character in Swift,
        // so CRLF files count right too); a form feed or U+2028 is blank space inside a line, not a line break.
        // A byte-order mark (some Windows editors write one) is invisible: it would make the first header
        // "not a header", with an error no one could see the cause of.
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            let line = stripComment(String(rawLine)).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }

            if line.hasPrefix("[") {
                inSection = true
                keyLines = [:]
                current = nil
                discarded = PolicySettings()
                guard line.hasSuffix("]"), line.count >= 2 else {
                    let problem: PolicySection.SectionHeaderProblem = line.contains("]") ? .textAfterHeader : .unclosed
                    problems.append(.badSectionHeader(file: file, line: lineNumber, header: line,
                                                      reason: problem.description))
                    continue
                }
                switch PolicySection.parse(String(line.dropFirst().dropLast())) {
                case .failure(let problem):
                    problems.append(.badSectionHeader(file: file, line: lineNumber, header: line,
                                                      reason: problem.description))
                case .success(let section):
                    currentName = section.description
                    if let first = firstHeaderLine[section] {
                        problems.append(.duplicateSection(file: file, line: lineNumber, section: section.description,
                                                          firstLine: first))
                    } else {
                        firstHeaderLine[section] = lineNumber
                        entries.append(Entry(section: section, line: lineNumber, settings: PolicySettings()))
                        current = entries.count - 1
                        discarded = nil
                    }
                }
                continue
            }

            guard let equals = line.firstIndex(of: "=") else {
                problems.append(.malformedLine(file: file, line: lineNumber, text: line))
                continue
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key.isEmpty {
                problems.append(.malformedLine(file: file, line: lineNumber, text: line))
                continue
            }
            guard inSection else {
                problems.append(.keyOutsideSection(file: file, line: lineNumber, key: key))
                continue
            }
            guard let policyKey = PolicyKey(rawValue: key) else {
                problems.append(.unknownKey(file: file, line: lineNumber, key: key))
                continue
            }
            if let first = keyLines[key] {
                problems.append(.duplicateKey(file: file, line: lineNumber, key: key, section: currentName,
                                              firstLine: first))
                continue
            }
            keyLines[key] = lineNumber
            if value.isEmpty {
                problems.append(.badValue(file: file, line: lineNumber, key: key, value: value,
                                          expected: "a value (an empty value is not allowed)"))
                continue
            }
            let source = PolicySourceLine(file: file, line: lineNumber, section: currentName,
                                          text: "\(key) = \(value)")
            let problem: PolicyError?
            if let current {
                problem = entries[current].settings.set(policyKey, value, source: source)
            } else {
                problem = discarded?.set(policyKey, value, source: source)
            }
            if let problem { problems.append(problem) }
        }
        return PolicyDocument(file: file, problems: problems, sections: entries)
    }

    /// Removes a comment: `#` at the start of the line or after whitespace, to the end of the line.
    static func stripComment(_ line: String) -> String {
        var previous: Character? = nil
        for index in line.indices {
            let c = line[index]
            if c == "#" && (previous == nil || previous!.isWhitespace) { return String(line[..<index]) }
            previous = c
        }
        return line
    }
}
