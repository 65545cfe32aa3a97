import PortalCapture

/// What went wrong in a raw portal call made by a test.
enum RawPortalError: Error, CustomStringConvertible {
    case unexpectedHandle(expected: DBusObjectPath, got: DBusObjectPath)
    case noResponse(member: String, handle: DBusObjectPath)
    case missing(String)

    var description: String {
        switch self {
        case .unexpectedHandle(let expected, let got): "the frontend returned request \(got), predicted \(expected)"
        case .noResponse(let member, let handle): "no Response to \(member) on \(handle)"
        case .missing(let what): "missing \(what)"
        }
    }
}
