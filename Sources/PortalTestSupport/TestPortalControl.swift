import PortalCapture

/// Test support: the test backend's control interface, `org.pwrecord.TestPortal` at `/org/pwrecord/TestPortal` on
/// `org.freedesktop.impl.portal.desktop.pwrecordtest` (docs/test-desktop.md, "The control interface").
///
/// The backend is shared by every suite of a test run: hold ``exclusively(_:)`` around anything that scripts
/// responses, changes stream options or reads counters, so that suites running in parallel do not consume
/// each other's one-shot responses.
public struct TestPortalControl: Sendable {
    public static let destination = "org.freedesktop.impl.portal.desktop.pwrecordtest"
    public static let path = try! DBusObjectPath("/org/pwrecord/TestPortal")   // a valid literal
    public static let interface = "org.pwrecord.TestPortal"

    public let bus: DBusConnection

    public init(bus: DBusConnection) { self.bus = bus }

    /// Runs `body` while no other test steers the backend, after `Reset()` and once the sessions of the
    /// previous holder are gone (a client's `Close` reaches the backend through the frontend a little later,
    /// so counters would otherwise see the last test's streams).
    public static func exclusively<T: Sendable>(_ body: (TestPortalControl) async throws -> T) async throws -> T {
        await BackendLease.shared.acquire()
        do {
            let control = TestPortalControl(bus: try DBusConnection.session())
            defer { control.bus.close() }
            try await control.reset()
            try await control.waitForNoSessions(timeout: .seconds(5))
            let result = try await body(control)
            await BackendLease.shared.release()
            return result
        } catch {
            await BackendLease.shared.release()
            throw error
        }
    }

    @discardableResult
    public func call(_ member: String, _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await bus.call(destination: Self.destination, path: Self.path, interface: Self.interface, member: member,
                           body: body, timeout: .seconds(10))
    }

    public func setNextResponse(_ method: String, _ response: UInt32) async throws {
        try await call("SetNextResponse", [.string(method), .uint32(response)])
    }

    public func setStreamOptions(_ options: DBusVardict) async throws { try await call("SetStreamOptions", [options.dbusValue]) }
    public func resizeStreams(width: UInt32, height: UInt32) async throws { try await call("ResizeStreams", [.uint32(width), .uint32(height)]) }
    public func setProducing(_ producing: Bool) async throws { try await call("SetProducing", [.bool(producing)]) }
    public func closeSessions(emitClosed: Bool) async throws { try await call("CloseSessions", [.bool(emitClosed)]) }
    public func rejectRestoreTokens(_ reject: Bool) async throws { try await call("RejectRestoreTokens", [.bool(reject)]) }
    public func reset() async throws { try await call("Reset") }

    public func stats() async throws -> DBusVardict {
        try await call("Stats").argument(0, as: DBusVardict.self)
    }

    public func stat(_ key: String) async throws -> UInt32 { try await stats().requireUInt32(key) }

    /// Waits until the backend has no live session; after `timeout` closes what is left, without `Closed`.
    public func waitForNoSessions(timeout: Duration) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while try await stat("live_sessions") > 0 {
            if ContinuousClock.now >= deadline {
                try await closeSessions(emitClosed: false)
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    public func lastOptions(_ method: String) async throws -> DBusVardict {
        try await call("LastOptions", [.string(method)]).argument(0, as: DBusVardict.self)
    }
}
