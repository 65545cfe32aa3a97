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
