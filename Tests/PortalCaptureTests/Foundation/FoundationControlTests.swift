import Testing
import PortalCapture
import PortalTestSupport

/// The backend's control interface (`org.pwrecord.TestPortal`), seen through the real frontend.
@Suite("The test backend's control interface", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct FoundationControlTests {
    func closedSignal(_ portal: RawPortal, _ session: DBusObjectPath) async throws -> DBusSignalSubscription {
        try await portal.bus.subscribe(DBusMatchRule(sender: RawPortal.destination, path: session,
                                                     interface: "org.freedesktop.portal.Session", member: "Closed"))
    }

    func first(_ subscription: DBusSignalSubscription, within timeout: Duration) async -> DBusSignal? {
        await withTaskGroup(of: DBusSignal?.self) { group in
            group.addTask { for await signal in subscription { return signal }; return nil }
            group.addTask { try? await Task.sleep(for: timeout); return nil }
            let result = await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    @Test("CloseSessions(true) destroys the nodes and the client sees its session's Closed signal")
    func closeSessionsWithSignal() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            let capture = try await PortalStreamCapture.open(portal, session: session, nodeID: try #require(streams.first).nodeID)
            defer { capture.stop() }
            #expect(await capture.collector.wait { $0.count >= 3 })
            let closed = try await closedSignal(portal, session)
            try await control.closeSessions(emitClosed: true)
            let signal = await first(closed, within: .seconds(5))
            #expect(signal?.arguments == [DBusVardict().dbusValue], "org.freedesktop.portal.Session.Closed({})")
            #expect(try await control.stat("live_sessions") == 0)
            #expect(try await control.stat("live_streams") == 0)
            #expect(await capture.collector.waitForEvent { if case .ended = $0 { true } else { false } },
                    "the consumer's node went away")
            await #expect(throws: DBusError.self, "the frontend forgot the session") {
                _ = try await portal.start(session)
            }
        }
    }

    @Test("CloseSessions(false) destroys the nodes without a Closed signal")
    func closeSessionsWithoutSignal() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, _) = try await portal.startScreenCast()
            let closed = try await closedSignal(portal, session)
            try await control.closeSessions(emitClosed: false)
            #expect(await first(closed, within: .seconds(1)) == nil)
            #expect(try await control.stat("live_streams") == 0)
            try? await portal.closeSession(session)
        }
    }

    @Test("Stats counts a dialog for a Start without restore data and none for a Start restored from the token it gave")
    func restoreTokenSkipsTheDialog() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let first = try await portal.startScreenCast(["types": UInt32(2), "persist_mode": UInt32(2)])
            #expect(try await control.stat("dialogs_shown") == 1)
            let token = try first.start.results.requireString("restore_token")
            #expect(first.start.results["restore_data"] == nil, "the frontend swapped restore_data for a token")
            try await portal.closeSession(first.session)

            let second = try await portal.startScreenCast(["types": UInt32(1), "persist_mode": UInt32(2),
                                                           "restore_token": token])
            #expect(try await control.stat("dialogs_shown") == 1, "restored: no dialog")
            #expect(second.streams.map(\.sourceType) == [2], "the restored source is the window chosen the first time")
            let sent = try await control.lastOptions("SelectSources")
            let restore = try #require(sent["restore_data"], "the frontend passed restore_data: \(sent)")
            #expect(try restore.field(0, as: String.self) == "pwrecordtest")
            #expect(try await control.stat("sessions_created") == 2)
            try await portal.closeSession(second.session)

            let third = try await portal.startScreenCast(["persist_mode": UInt32(0)])
            #expect(try await control.stat("dialogs_shown") == 2)
            #expect(third.start.results["restore_token"] == nil, "persist_mode 0 gives no token")
            try await portal.closeSession(third.session)
        }
    }

    @Test("RejectRestoreTokens makes SelectSources with restore data answer 2")
    func rejectedRestoreData() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let first = try await portal.startScreenCast(["persist_mode": UInt32(2)])
            let token = try first.start.results.requireString("restore_token")
            try await portal.closeSession(first.session)
            try await control.rejectRestoreTokens(true)
            let session = try #require(try await portal.createSession().session)
            let selected = try await portal.selectSources(session, ["persist_mode": UInt32(2), "restore_token": token])
            #expect(selected.code == 2)
            #expect(try await control.stat("dialogs_shown") == 1, "only the first Start showed one")
        }
    }

    @Test("LastOptions shows the options the frontend passed on, without the client's handle_token")
    func lastOptionsShowsWhatTheBackendGot() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            #expect(try await control.lastOptions("SelectSources") == [:], "nothing before the first call")
            let (session, _, _) = try await portal.startScreenCast(["types": UInt32(3), "multiple": true,
                                                                     "cursor_mode": UInt32(4), "unknown_key": "x"])
            let sent = try await control.lastOptions("SelectSources")
            #expect(sent == ["types": UInt32(3), "multiple": true, "cursor_mode": UInt32(4)])
            #expect(try await control.lastOptions("Start") == [:])
            try await portal.closeSession(session)
            await #expect(throws: DBusError.self) { _ = try await control.lastOptions("Record") }
        }
    }

    @Test("SetStreamOptions refuses an unknown key, a wrong type or a bad value and changes nothing",
          arguments: [["colour": DBusValue.string("red")], ["width": .int32(640)], ["format": .string("YUY2")],
                      ["fps": .uint32(0)], ["width": .uint32(640), "header": .uint32(500)]])
    func badStreamOptionsAreRefused(_ options: [String: DBusValue]) async throws {
        try await TestPortalControl.exclusively { control in
            do {
                try await control.setStreamOptions(DBusVardict(options))
                Issue.record("\(options) was accepted")
            } catch let DBusError.remote(name, message) {
                #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
                #expect(options.keys.contains { message.contains("'\($0)'") }, "\(message)")
            }
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            #expect(streams.first?.size?.width == 320, "the default size stayed")
            try await portal.closeSession(session)
        }
    }

    @Test("ResizeStreams renegotiates every live stream to the new size")
    func resizeStreams() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            let capture = try await PortalStreamCapture.open(portal, session: session, nodeID: try #require(streams.first).nodeID)
            defer { capture.stop() }
            #expect(await capture.collector.wait { $0.count >= 3 })
            try await control.resizeStreams(width: 200, height: 150)
            #expect(await capture.collector.wait(timeout: .seconds(10)) {
                $0.filter { $0.format.width == 200 && $0.format.height == 150 }.count >= 3
            }, "\(capture.collector.summaries.map(\.format))")
            #expect(capture.collector.summaries.allSatisfy { $0.colourMismatch == nil })
            try await portal.closeSession(session)
        }
    }

    @Test("SetProducing(false) stops the frames of live streams and SetProducing(true) brings them back")
    func setProducing() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            let capture = try await PortalStreamCapture.open(portal, session: session, nodeID: try #require(streams.first).nodeID)
            defer { capture.stop() }
            #expect(await capture.collector.wait { $0.count >= 3 })
            try await control.setProducing(false)
            try await Task.sleep(for: .milliseconds(200))   // frames already in flight
            let paused = capture.collector.summaries.count
            try await Task.sleep(for: .milliseconds(500))
            #expect(capture.collector.summaries.count == paused, "no frames while paused")
            try await control.setProducing(true)
            #expect(await capture.collector.wait { $0.count >= paused + 3 })
            try await portal.closeSession(session)
        }
    }
}
