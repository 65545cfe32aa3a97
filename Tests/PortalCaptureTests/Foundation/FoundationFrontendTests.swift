import PortalTestSupport
import Foundation
import Testing
import PortalCapture

/// The real xdg-desktop-portal frontend, as a client sees it, with our backend behind it.
@Suite("The portal frontend in front of the test backend", .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
struct FoundationFrontendTests {
    @Test("the frontend exports ScreenCast with version 4 and Screenshot, with our backend's source types and cursor modes")
    func frontendExportsScreenCastAndScreenshot() async throws {
        let portal = try RawPortal.connect()
        defer { portal.bus.close() }
        let xml = try await portal.bus.call(destination: RawPortal.destination, path: RawPortal.path,
                                            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            .argument(0, as: String.self)
        #expect(xml.contains("<interface name=\"org.freedesktop.portal.ScreenCast\">"))
        #expect(xml.contains("<interface name=\"org.freedesktop.portal.Screenshot\">"))
        #expect(try await portal.property(RawPortal.screenCast, "version").decode(as: UInt32.self) == 4)
        #expect(try await portal.property(RawPortal.screenCast, "AvailableSourceTypes").decode(as: UInt32.self) == 3)
        #expect(try await portal.property(RawPortal.screenCast, "AvailableCursorModes").decode(as: UInt32.self) == 7)
        #expect(try await portal.property(RawPortal.screenshot, "version").decode(as: UInt32.self) == 2)
    }

    @Test("a cursor mode the backend does not offer is refused by the frontend with InvalidArgument")
    func unofferedCursorModeIsRefused() async throws {
        // Inside the lease: another test's scripted CreateSession answer must not land on this session.
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (created, session) = try await portal.createSession()
            let path = try #require(session, "\(created)")
            await #expect(throws: DBusError.self) {
                _ = try await portal.selectSources(path, ["cursor_mode": UInt32(8)])
            }
            #expect(try await control.lastOptions("SelectSources") == [:], "the backend was not asked")
            try await portal.closeSession(path)
        }
    }

    @Test("stop-frontend takes the portal off the bus and start-frontend brings it back (on a desktop of its own)")
    func frontendCanBeStoppedAndRestarted() async throws {
        // The dbus-send calls are blocking waits for a child: on a thread of their own, never on the test pool.
        try await RunningDesktop.withDesktopOfItsOwn { desktop in try await frontendStopsAndStarts(on: desktop) }
    }

    func frontendStopsAndStarts(on desktop: RunningDesktop) async throws {
        let dir = desktop.stateDirectory
        let first = try #require(try desktop.recordedProcesses().first { $0.name == "frontend" })
        #expect(await onThread { desktop.nameHasOwner("org.freedesktop.portal.Desktop") })

        let stop = await onThread { RunningDesktop.runScript(["stop-frontend", dir]) }
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(await onThread { !desktop.nameHasOwner("org.freedesktop.portal.Desktop") })
        #expect(!first.isRunning)
        #expect(try desktop.recordedProcesses().allSatisfy { $0.name != "frontend" })
        #expect(await onThread { desktop.nameHasOwner("org.freedesktop.impl.portal.desktop.pwrecordtest") },
                "the backend stays")

        let restart = await onThread { RunningDesktop.runScript(["start-frontend", dir]) }
        #expect(restart.status == 0, "\(restart.stderr)")
        let second = try #require(try desktop.recordedProcesses().first { $0.name == "frontend" })
        #expect(second.pid != first.pid)
        #expect(second.isRunning)
        #expect(await onThread { desktop.ownerPID(of: "org.freedesktop.portal.Desktop") } == second.pid)
        let version = await onThread {
            desktop.busCall(destination: "org.freedesktop.portal.Desktop", path: "/org/freedesktop/portal/desktop",
                            method: "org.freedesktop.DBus.Properties.Get",
                            ["string:org.freedesktop.portal.ScreenCast", "string:AvailableCursorModes"])
        }
        #expect(version.stdout.contains("uint32 7"), "the new frontend read the backend's properties: \(version.stdout)")
        let again = await onThread { RunningDesktop.runScript(["start-frontend", dir]) }
        #expect(again.status != 0, "a second start-frontend refuses: the frontend runs")
        let status = await onThread { RunningDesktop.runScript(["status", dir]) }
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
    }
}
