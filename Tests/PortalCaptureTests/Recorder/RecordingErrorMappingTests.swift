import Testing
@testable import PortalCapture

/// How a refusal reaches the recorder's user: the desktop's refusal (the portal's `NotAllowed`) and our recording
/// policy's are different errors with different advice.
@Suite("Recording error mapping")
struct RecordingErrorMappingTests {
    static let portalText = "Screen casting is not allowed for org.example.App"

    @Test("the portal's NotAllowed is notPermitted, with the portal's text and the desktop-settings hint, not the policy")
    func portalNotAllowedIsNotPermitted() {
        let error = RecordingError(PortalError.notAllowed(message: Self.portalText))
        #expect(error == .notPermitted(reason: Self.portalText))
        let text = error.description
        #expect(text.contains(Self.portalText), "\(text)")
        #expect(text.contains("privacy settings") && text.contains("portal permissions"), "\(text)")
        #expect(!text.contains("policy"), "\(text)")
        #expect(!text.contains("administrator"), "\(text)")
    }

    @Test("each D-Bus error meaning the desktop refused reaches the recorder as notPermitted",
          arguments: ["org.freedesktop.portal.Error.NotAllowed", "org.freedesktop.DBus.Error.AccessDenied"])
    func dbusRefusalIsNotPermitted(name: String) {
        let portal = PortalError(.remote(name: name, message: Self.portalText), interface: ScreenCastPortal.interface,
                                 method: "CreateSession")
        #expect(RecordingError(portal) == .notPermitted(reason: Self.portalText))
    }

    @Test("a refusal without text still says the desktop refused and what to do")
    func emptyText() {
        let text = RecordingError(PortalError.notAllowed(message: "")).description
        #expect(text == "the desktop refused screen capture for this application; allow screen capture for it in the "
            + "desktop's privacy settings (for a Flatpak app, its portal permissions) and try again")
    }

    @Test("a sink refused by the recording policy is still disabled, pointing to 'pwrecord policy explain'")
    func sinkRefusedByPolicyIsDisabled() {
        let error = RecordingError(SinkError.notAllowed(id: "raw"))
        guard case .disabled(let reason) = error else {
            Issue.record("expected disabled, got \(error)")
            return
        }
        #expect(reason == SinkError.notAllowed(id: "raw").description)
        #expect(error.description.contains("pwrecord policy explain"))
    }

    @Test("a portal the bus could not start on demand is portalUnavailable with the bus's reason, not a failed start",
          arguments: ["org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.ExecFailed",
                      "org.freedesktop.systemd1.UnitMasked"])
    func portalThatCannotStartIsUnavailable(name: String) {
        let portal = PortalError(.remote(name: name, message: "exited with status 1"), interface: ScreenCastPortal.interface,
                                 method: "CreateSession")
        let error = RecordingError(portal)
        #expect(error == .portalUnavailable(reason: portal.description))
        #expect(error.description.contains("exited with status 1") && error.description.contains("xdg-desktop-portal"),
                "\(error)")
    }

    @Test("only the portal's refusal is notPermitted: no other portal error maps there",
          arguments: PortalErrorExamples.all)
    func onlyNotAllowedIsNotPermitted(error: PortalError) {
        let isRefusal = if case .notAllowed = error { true } else { false }
        let mapped = if case .notPermitted = RecordingError(error) { true } else { false }
        #expect(mapped == isRefusal, "\(error) -> \(RecordingError(error))")
        if case .disabled = RecordingError(error) { Issue.record("\(error) is reported as our policy") }
    }
}
