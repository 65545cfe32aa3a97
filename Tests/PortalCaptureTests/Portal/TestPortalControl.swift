import Foundation
@testable import PortalCapture

/// A client of the test backend's control interface (`org.pwrecord.TestPortal` at `/org/pwrecord/TestPortal` on
/// `org.freedesktop.impl.portal.desktop.pwrecordtest`; contract in /work/wt/CONTROL.md and docs/test-desktop.md).
struct TestPortalControl: Sendable {
    static let busName = "org.freedesktop.impl.portal.desktop.pwrecordtest"
    static let path = DBusObjectPath(unchecked: "/org/pwrecord/TestPortal")
    static let interface = "org.pwrecord.TestPortal"

    let connection: DBusConnection

    private func call(_ member: String, _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: member,
                                  body: body, timeout: .seconds(10))
    }

    /// The next call of `method` answers `response` (0 normal, 1 declined, 2 failed, 3 never).
    func setNextResponse(_ method: String, _ response: UInt32) async throws {
        _ = try await call("SetNextResponse", [.string(method), .uint32(response)])
    }

    func setStreamOptions(_ options: DBusVardict) async throws {
        _ = try await call("SetStreamOptions", [options.dbusValue])
    }

    func closeSessions(emitClosed: Bool) async throws {
        _ = try await call("CloseSessions", [.bool(emitClosed)])
    }

    func rejectRestoreTokens(_ reject: Bool) async throws {
        _ = try await call("RejectRestoreTokens", [.bool(reject)])
    }

    struct Stats: Sendable, Equatable {
        var dialogsShown: UInt32
        var sessionsCreated: UInt32
        var liveSessions: UInt32
    }

    func stats() async throws -> Stats {
        let dict = try await call("Stats").argument(0, as: DBusVardict.self)
        return Stats(dialogsShown: try dict.value("dialogs_shown"), sessionsCreated: try dict.value("sessions_created"),
                     liveSessions: try dict.value("live_sessions"))
    }

    /// The options the backend last received for `method` (after the frontend's filtering).
    func lastOptions(_ method: String) async throws -> DBusVardict {
        try await call("LastOptions", [.string(method)]).argument(0, as: DBusVardict.self)
    }
}
