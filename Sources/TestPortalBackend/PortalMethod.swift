/// The `org.freedesktop.impl.portal.*` methods whose answer a test can script
/// (`org.pwrecord.TestPortal.SetNextResponse`) and whose options it can read back (`LastOptions`).
enum PortalMethod: String, CaseIterable, Sendable {
    case createSession = "CreateSession"
    case selectSources = "SelectSources"
    case start = "Start"
    case screenshot = "Screenshot"
    case pickColor = "PickColor"
    case accessDialog = "AccessDialog"

    static var allNames: [String] { allCases.map(\.rawValue) }

    /// Parses a method name; throws ``BackendError/unknownMethod(_:)``.
    init(name: String) throws(BackendError) {
        guard let method = PortalMethod(rawValue: name) else { throw .unknownMethod(name) }
        self = method
    }
}
