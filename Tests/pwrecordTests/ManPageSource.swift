import Foundation

/// A man(7) page's source split into what the man page tests check: its `.SH` and `.SS` sections, and in
/// each the `.TP` entries (tag line and paragraph) with roff escapes turned into plain text.
struct ManPageSource {
    struct Entry {
        /// The tag line as plain text, e.g. `-o, --output file`.
        var tag: String
        /// The paragraph below the tag, as plain text on one line.
        var text: String

        /// The option names in the tag: `--output`, `-o`.
        var optionNames: [String] {
            tag.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "[" || $0 == "]" || $0 == "|" })
                .map(String.init).filter { $0.hasPrefix("-") && $0.count > 1 }
        }
    }

    struct Section {
        var heading: String
        var lines: [String] = []

        /// The `.TP` entries in order (a `.TQ` tag joins the entry before it).
        var entries: [Entry] {
            var entries: [Entry] = []
            var i = 0
            while i < lines.count {
                let line = lines[i]
                if line == ".TP", i + 1 < lines.count {
                    var tags = [ManPageSource.plain(lines[i + 1])]
                    i += 2
                    while i + 1 < lines.count, lines[i] == ".TQ" { tags.append(ManPageSource.plain(lines[i + 1])); i += 2 }
                    var body: [String] = []
                    while i < lines.count, ![".TP", ".PP", ".RS", ".RE", ".IP"].contains(lines[i]) {
                        body.append(ManPageSource.plain(lines[i])); i += 1
                    }
                    entries.append(Entry(tag: tags.joined(separator: " "), text: body.joined(separator: " ")))
                } else {
                    i += 1
                }
            }
            return entries
        }

        var text: String { lines.map(ManPageSource.plain).joined(separator: " ") }
    }

    /// `.TH` arguments, e.g. `["PWRECORD", "1", "2026-11-30", "pwrecord 0.1.0", "User Commands"]`.
    var title: [String] = []
    /// `.SH` sections, each holding its `.SS` subsections' lines too.
    var sections: [Section] = []
    var subsections: [Section] = []

    init(_ source: String) {
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".\\\"") { continue }
            if line.hasPrefix(".TH ") {
                title = ManPageSource.arguments(String(line.dropFirst(4)))
            } else if line.hasPrefix(".SH ") {
                sections.append(Section(heading: ManPageSource.plain(line)))
            } else if line.hasPrefix(".SS ") {
                subsections.append(Section(heading: ManPageSource.plain(line)))
                sections[sections.count - 1].lines.append(line)
            } else {
                if !sections.isEmpty { sections[sections.count - 1].lines.append(line) }
                if !subsections.isEmpty, sections.last?.heading == "COMMANDS" { subsections[subsections.count - 1].lines.append(line) }
            }
        }
    }

    func section(_ heading: String) -> Section? { sections.first { $0.heading == heading } }
    func subsection(_ heading: String) -> Section? { subsections.first { $0.heading == heading } }

    /// A macro's arguments: words, or double-quoted strings.
    static func arguments(_ s: String) -> [String] {
        var out: [String] = [], current = "", quoted = false
        for ch in s {
            if ch == "\"" { quoted.toggle(); continue }
            if ch == " " && !quoted { if !current.isEmpty { out.append(current) }; current = ""; continue }
            current.append(ch)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A source line as the text it shows: font macros (`.B`, `.BR`, ...) joined as their alternation does,
    /// font escapes dropped, `\-` as `-`, named characters and `\c` resolved.
    static func plain(_ line: String) -> String {
        var text = line
        if text.hasPrefix(".") {
            let parts = text.split(separator: " ", maxSplits: 1)
            let macro = parts.first.map(String.init) ?? ""
            let rest = parts.count > 1 ? String(parts[1]) : ""
            // Alternating-font macros join their arguments without spaces; .B and .I keep them.
            if ["BR", "RB", "BI", "IB", "IR", "RI"].contains(String(macro.dropFirst())) {
                text = arguments(rest).joined()
            } else if [".B", ".I", ".SH", ".SS", ".TP", ".TQ", ".IP", ".PP", ".RS", ".RE", ".EX", ".EE", ".SY", ".YS"].contains(macro) {
                text = arguments(rest).joined(separator: " ")
            } else {
                text = rest
            }
        }
        for (escape, replacement) in [("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\fP", ""), ("\\-", "-"), ("\\e", "\\"),
                                      ("\\(lq", "\""), ("\\(rq", "\""), ("\\c", ""), ("\\&", ""), ("\\|", "")] {
            text = text.replacingOccurrences(of: escape, with: replacement)
        }
        return text
    }
}
