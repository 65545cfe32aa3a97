import PortalCapture

/// The test backend's control interface, `org.pwrecord.TestPortal` at `/org/pwrecord/TestPortal` on
/// `org.freedesktop.impl.portal.desktop.pwrecordtest` (docs/test-desktop.md, "The control interface").
///
/// The backend is shared by every suite of a test run: hold ``exclusively(_:)`` around anything that scripts
/// responses, changes stream options or reads counters, so that suites running in parallel do not consume
/// each other's one-shot responses.
struct TestPortalControl: Sendable {
    static let destination = "org.freedesktop.impl.portal.desktop.pwrecordtest"
    static let path = DBusObjectPath(testConstant: "/org/pwrecord/TestPortal")
    static let interface = "org.pwrecord.TestPortal"

    let bus: DBusConnection

    /// Runs `body` while no other test steers the backend, after `Reset()`.
    @discardableResult
    static func exclusively<T: Sendable>(_ body: (TestPortalControl) async throws -> T) async throws -> T {
        await BackendLease.shared.acquire()
        do {
            let control = TestPortalControl(bus: try DBusConnection.session())
            defer { control.bus.close() }
            try await control.reset()
            let result = try await body(control)
            await BackendLease.shared.release()
            return result
        } catch {
            await BackendLease.shared.release()
            throw error
        }
    }

    @discardableResult
    func call(_ member: String, _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await bus.call(destination: Self.destination, path: Self.path, interface: Self.interface, member: member,
                           body: body, timeout: .seconds(10))
    }

    func setNextResponse(_ method: String, _ response: UInt32) async throws {
        try await call("SetNextResponse", [.string(method), .uint32(response)])
    }

    func setStreamOptions(_ options: DBusVardict) async throws { try await call("SetStreamOptions", [options.dbusValue]) }
    func resizeStreams(width: UInt32, height: UInt32) async throws { try await call("ResizeStreams", [.uint32(width), .uint32(height)]) }
    func setProducing(_ producing: Bool) async throws { try await call("SetProducing", [.bool(producing)]) }
    func closeSessions(emitClosed: Bool) async throws { try await call("CloseSessions", [.bool(emitClosed)]) }
    func rejectRestoreTokens(_ reject: Bool) async throws { try await call("RejectRestoreTokens", [.bool(reject)]) }
    func reset() async throws { try await call("Reset") }

    func stats() async throws -> DBusVardict {
        try await call("Stats").argument(0, as: DBusVardict.self)
    }

    func stat(_ key: String) async throws -> UInt32 { try await stats().requireUInt32(key) }

    func lastOptions(_ method: String) async throws -> DBusVardict {
        try await call("LastOptions", [.string(method)]).argument(0, as: DBusVardict.self)
    }
}
