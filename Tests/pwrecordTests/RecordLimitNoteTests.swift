import Testing
@testable import pwrecord

@Suite("The recording line says how long it will record, and why")
struct RecordLimitNoteTests {
    @Test("the policy's max-duration is named when it is what stops the recording")
    func policyNamed() {
        #expect(RecordCommand.limitNote(10, policy: .seconds(3)) == " for 3.0 s (the policy's max-duration; 10.0 s asked)")
        #expect(RecordCommand.limitNote(nil, policy: .seconds(3)) == " for at most 3.0 s (the policy's max-duration)")
        #expect(RecordCommand.limitNote(2, policy: .seconds(3)) == " for 2.0 s")
        #expect(RecordCommand.limitNote(2, policy: nil) == " for 2.0 s")
        #expect(RecordCommand.limitNote(nil, policy: nil) == "")
    }
}
