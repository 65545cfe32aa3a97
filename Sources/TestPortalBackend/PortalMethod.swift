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

/// How the next call of a method answers (the `response` of `SetNextResponse`).
enum ResponseMode: UInt32, Sendable {
    /// Do what the method normally does.
    case normal = 0
    /// Reply `(1, {})`: the user cancelled.
    case declined = 1
    /// Reply `(2, {})`: something failed.
    case failed = 2
    /// Never reply; the request object stays exported until `org.freedesktop.impl.portal.Request.Close`.
    case neverAnswer = 3

    init(code: UInt32) throws(BackendError) {
        guard let mode = ResponseMode(rawValue: code) else { throw .invalidResponse(code) }
        self = mode
    }
}

/// One-shot scripted answers: per method, plus one for "the next call of any method" (`*`). A method's own
/// entry wins over `*`; each entry is used once.
struct ScriptedResponses: Sendable {
    private var byMethod: [PortalMethod: ResponseMode] = [:]
    private var any: ResponseMode?

    /// Scripts the next call of `method`, or of any method when `method` is nil.
    mutating func set(_ mode: ResponseMode, for method: PortalMethod?) {
        if let method { byMethod[method] = mode } else { any = mode }
    }

    /// The scripted answer for this call of `method`, consumed; nil when none is scripted.
    mutating func take(for method: PortalMethod) -> ResponseMode? {
        if let mode = byMethod.removeValue(forKey: method) { return mode }
        defer { any = nil }
        return any
    }
}
