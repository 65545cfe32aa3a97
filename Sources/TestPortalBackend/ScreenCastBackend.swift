import Foundation
import PortalTestSupport

/// `org.freedesktop.impl.portal.ScreenCast` version 4, as the xdg-desktop-portal 1.16 frontend calls it
/// (docs/test-desktop.md, "The backend contract"): monitor and window sources, `multiple`, the three cursor
/// modes, `persist_mode` with restore data. Every answer is the method reply `(u response, a{sv} results)`.
struct ScreenCastBackend: Sendable {
    static let interfaceName = "org.freedesktop.impl.portal.ScreenCast"
    let portal: TestPortal

    var interface: DBusInterface {
        let backend = self
        return DBusInterface(Self.interfaceName, methods: [
            .deferred("CreateSession", in: "oosa{sv}", out: "ua{sv}") { backend.createSession($0) },
            .deferred("SelectSources", in: "oosa{sv}", out: "ua{sv}") { backend.selectSources($0) },
            .deferred("Start", in: "oossa{sv}", out: "ua{sv}") { backend.start($0) },
        ], properties: [
            .constant("version", .uint32(4)),
            .constant("AvailableSourceTypes", .uint32(3)),    // MONITOR | WINDOW
            .constant("AvailableCursorModes", .uint32(7)),    // hidden | embedded | metadata
        ])
    }

    /// `CreateSession(o handle, o session_handle, s app_id, a{sv} options)`: exports the Session object.
    func createSession(_ call: DBusMethodCall) {
        do {
            let handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            let session = try call.arguments.argument(1, as: DBusObjectPath.self)
            let appID = try call.arguments.argument(2, as: String.self)
            let options = try call.arguments.argument(3, as: DBusVardict.self)
            guard portal.begin(.createSession, call, handle: handle, options: options) else { return }
            guard portal.openSession(at: session, appID: appID) else { return portal.respond(call, 2) }
            portal.respond(call, 0, ["session_id": session.rawValue])
        } catch {
            portal.reject(call, error)
        }
    }

    /// `SelectSources(o handle, o session_handle, s app_id, a{sv} options)`: remembers the choice; restore
    /// data this backend issued for the same app id makes the later `Start` show no dialog.
    func selectSources(_ call: DBusMethodCall) {
        do {
            let handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            let path = try call.arguments.argument(1, as: DBusObjectPath.self)
            let options = try call.arguments.argument(3, as: DBusVardict.self)
            guard portal.begin(.selectSources, call, handle: handle, options: options) else { return }
            let selection = try SourceSelection(options: options)
            let accepted = portal.state.withLock { s -> Bool in
                guard var session = s.sessions[path], !session.started else { return false }
                if selection.restoreData != nil && s.rejectRestoreData { return false }
                session.selection = selection
                session.restoredSources = selection.restoreData.flatMap(RestoreData.init).flatMap { data in
                    s.issuedRestoreIDs.contains(data.id) && data.appID == session.appID ? data.sources : nil
                }
                s.sessions[path] = session
                return true
            }
            portal.respond(call, accepted ? 0 : 2)
        } catch {
            BackendLog.write("SelectSources: \(error)")
            portal.respond(call, 2)
        }
    }

    /// `Start(o handle, o session_handle, s app_id, s parent_window, a{sv} options)`: creates one PipeWire
    /// node per chosen source (times `streams_per_source`) and answers with their ids once PipeWire
    /// announced them.
    func start(_ call: DBusMethodCall) {
        let handle: DBusObjectPath, path: DBusObjectPath, options: DBusVardict
        do {
            handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            path = try call.arguments.argument(1, as: DBusObjectPath.self)
            options = try call.arguments.argument(4, as: DBusVardict.self)
        } catch {
            return portal.reject(call, error)
        }
        guard portal.begin(.start, call, handle: handle, options: options) else { return }
        guard let plan = plan(for: path) else { return portal.respond(call, 2) }
        var streams: [SessionStream] = []
        do {
            for source in plan.sources {
                for k in 0..<plan.options.streamsPerSource {
                    let name = "pwrecordtest-s\(plan.session.number)-\(source.id)" + (k > 0 ? "-\(k)" : "")
                    streams.append(try SessionStream(core: portal.pipewire, source: source, options: plan.options,
                                                     cursorMode: plan.session.selection.cursorMode, nodeName: name))
                }
            }
        } catch {
            BackendLog.write("Start: cannot create a stream: \(error)")
            streams.forEach { $0.stop() }
            return portal.respond(call, 2)
        }
        let attached = portal.state.withLock { s -> Bool in
            guard s.sessions[path] != nil else { return false }
            s.sessions[path]?.streams = streams
            return true
        }
        guard attached else {
            streams.forEach { $0.stop() }
            return portal.respond(call, 2)
        }
        let portal = self.portal
        Task {
            var entries: [DBusValue] = []
            do {
                for stream in streams { entries.append(stream.streamEntry(nodeID: try await stream.waitUntilReady())) }
            } catch {
                BackendLog.write("Start: a stream did not come up: \(error)")
                portal.closeSession(path, emitClosed: false)
                return portal.respond(call, 2)
            }
            guard portal.state.withLock({ $0.sessions[path] != nil }) else {
                BackendLog.write("Start: session \(path) was closed while its streams came up")
                return portal.respond(call, 2)
            }
            var results: DBusVardict = ["streams": DBusValue.array(element: .structure([.uint32, .vardict]), entries)]
            let persist = plan.session.selection.persistMode
            if persist == 1 || persist == 2 {
                let data = RestoreData(id: UUID().uuidString, appID: plan.session.appID, sources: plan.sources)
                portal.state.withLock { _ = $0.issuedRestoreIDs.insert(data.id) }
                results["restore_data"] = data.dbusValue
                results["persist_mode"] = .uint32(persist)
            }
            BackendLog.write("Start \(path): \(entries.count) streams \(results)")
            portal.respond(call, 0, results)
        }
    }

    private struct Plan {
        var session: BackendSession
        var sources: [CaptureSource]
        var options: StreamOptions
    }

    /// Marks the session started and decides what it shows: the restored sources (no dialog) or those the
    /// "dialog" picks (counted). Nil when the session is unknown, already started, asks for no source we
    /// offer, or carries restore data while `RejectRestoreTokens` is on.
    private func plan(for path: DBusObjectPath) -> Plan? {
        portal.state.withLock { s -> Plan? in
            guard var session = s.sessions[path], !session.started else { return nil }
            if session.selection.restoreData != nil && s.rejectRestoreData { return nil }
            let sources = session.restoredSources
                ?? CaptureSource.choose(types: session.selection.types, multiple: session.selection.multiple)
            guard !sources.isEmpty else { return nil }
            if session.restoredSources == nil { s.dialogsShown += 1 }
            session.started = true
            s.sessions[path] = session
            return Plan(session: session, sources: sources, options: s.streamOptions)
        }
    }
}
