import PortalCapture

/// One ``PortalError`` of each case, for tests that must cover them all, linked as a ring: ``after(_:)`` names the
/// next example. Its switch has no `default`, so a new case does not compile until it is given an example and a
/// place in the ring; `all` walks the ring once.
///
/// Every payload is ``payload``, a text no description uses on its own, so a test can tell the fixed wording from
/// what was passed in.
enum PortalErrorExamples {
    static let payload = "⟪payload⟫"
    static let first = PortalError.cancelled

    static func after(_ error: PortalError) -> PortalError {
        switch error {
        case .cancelled: .ended
        case .ended: .timedOut(request: payload, seconds: 2)
        case .timedOut: .portalNotFound
        case .portalNotFound: .portalFailedToStart(message: payload)
        case .portalFailedToStart: .interfaceMissing(interface: payload)
        case .interfaceMissing: .requiresVersion(interface: payload, needed: 4, available: 3)
        case .requiresVersion: .unsupported(what: payload, available: payload)
        case .unsupported: .invalidArgument(message: payload)
        case .invalidArgument: .notAllowed(message: payload)
        case .notAllowed: .sessionClosed
        case .sessionClosed: .portalVanished(during: payload)
        case .portalVanished: .malformedReply(method: payload, key: payload, reason: payload)
        case .malformedReply: .fileUnreadable(path: payload, reason: payload)
        case .fileUnreadable: .busUnavailable(reason: payload)
        case .busUnavailable: .dbus(name: payload, message: payload)
        case .dbus: first
        }
    }

    /// The ring from ``first`` until it comes back to it, or stops after 100 steps (a ring that does not close).
    static var walk: (errors: [PortalError], closed: Bool) {
        var errors = [first]
        var next = after(first)
        while next != first && errors.count < 100 {
            errors.append(next)
            next = after(next)
        }
        return (errors, next == first)
    }

    /// One error of each case.
    static var all: [PortalError] { walk.errors }
}
