import Testing
import PortalCapture
@testable import pwrecord

/// The exit status and one-line error `pwrecord record` and `screenshot` give for a recorder error (they print
/// `error.description` and exit with `ExitCode(error)`): the desktop's refusal and our policy's are told apart.
@Suite("Exit codes for recorder errors")
struct ExitCodeMappingTests {
    @Test("the desktop's NotAllowed exits 6, saying to allow capture in its settings and not pointing to the policy")
    func desktopRefusal() {
        let error = RecordingError(PortalError.notAllowed(message: "Screenshot not allowed"))
        #expect(ExitCode(error) == .notPermitted)
        #expect(ExitCode(error).rawValue == 6)
        #expect(!error.description.contains("policy explain"), "\(error.description)")
        #expect(error.description.contains("privacy settings"), "\(error.description)")
    }

    @Test("a sink the recording policy refuses still exits 4, pointing to 'pwrecord policy explain'")
    func policyRefusal() {
        // What the recorder throws for it (RecordingErrorMappingTests checks the mapping).
        let error = RecordingError.disabled(reason: SinkError.notAllowed(id: "raw").description)
        #expect(ExitCode(error) == .disabledByPolicy)
        #expect(error.description.contains("pwrecord policy explain"))
    }

    @Test("the user's no in the dialog stays exit 3, apart from the desktop's refusal")
    func declinedStaysApart() {
        #expect(ExitCode(RecordingError(PortalError.cancelled)) == .declined)
        #expect(ExitCode(RecordingError(PortalError.cancelled)) != ExitCode(RecordingError(PortalError.notAllowed(message: "no"))))
    }
}
