import Foundation
import Testing
import PortalCapture

/// Every ``PortalError`` carries a recovery hint (docs/style.md, "one error type per domain"). A description reads
/// "what happened; what to do": the hint is the text after the last "; ", and it
/// - starts with an imperative verb of recovery (``PortalErrorHintTests/recoveryVerbs``), as in "start
///   xdg-desktop-portal …", "choose something it offers";
/// - is a phrase (three words or more), not a bare verb;
/// - comes from the fixed wording, not from the case's payload (the examples' payloads never appear in it).
@Suite("Portal error hints")
struct PortalErrorHintTests {
    static let recoveryVerbs: Set<String> = [
        "allow", "answer", "ask", "change", "check", "choose", "install", "report", "restart", "retry", "see", "start",
        "update",
    ]

    @Test("the examples hold one error of each case, in a ring that closes")
    func examplesCoverEachCaseOnce() {
        let (errors, closed) = PortalErrorExamples.walk
        #expect(closed, "the ring does not lead back to \(PortalErrorExamples.first)")
        // after(_:) depends on the case alone, so values that all differ are cases that all differ.
        for (index, error) in errors.enumerated() {
            #expect(errors.firstIndex(of: error) == index, "\(error) is in the ring twice")
        }
    }

    @Test("each error says what happened, then what to do", arguments: PortalErrorExamples.all)
    func hint(error: PortalError) throws {
        let text = error.description
        let split = try #require(text.range(of: "; ", options: .backwards), "no '; ' before a hint in: \(text)")
        let happened = text[..<split.lowerBound]
        let hint = text[split.upperBound...]
        #expect(!happened.isEmpty, "nothing says what happened: \(text)")
        let words = hint.split(separator: " ")
        let verb = words.first.map(String.init) ?? ""
        #expect(Self.recoveryVerbs.contains(verb), "the hint '\(hint)' does not start with a recovery verb")
        #expect(words.count >= 3, "the hint '\(hint)' is not a phrase")
        #expect(!hint.contains(PortalErrorExamples.payload), "the hint '\(hint)' is the payload, not fixed wording")
    }
}
