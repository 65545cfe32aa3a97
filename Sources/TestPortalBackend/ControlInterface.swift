import PortalCapture

/// `org.pwrecord.TestPortal` at `/org/pwrecord/TestPortal`: how tests steer the backend (the contract is
/// /work/wt/CONTROL.md, copied into docs/test-desktop.md). Bad arguments get
/// `org.freedesktop.DBus.Error.InvalidArgs` with a sentence saying what is wrong.
struct ControlInterface: Sendable {
    static let interfaceName = "org.pwrecord.TestPortal"
    static let objectPath = DBusObjectPath(constant: "/org/pwrecord/TestPortal")
    let portal: TestPortal

    var interface: DBusInterface {
        let c = self
        return DBusInterface(Self.interfaceName, methods: [
            .replying("SetNextResponse", in: "su", out: "") { call throws(DBusError) in
                try c.setNextResponse(method: try call.arguments.argument(0), response: try call.arguments.argument(1))
                return []
            },
            .replying("SetStreamOptions", in: "a{sv}", out: "") { call throws(DBusError) in
                try c.setStreamOptions(try call.arguments.argument(0))
                return []
            },
            .replying("ResizeStreams", in: "uu", out: "") { call throws(DBusError) in
                try c.resizeStreams(width: try call.arguments.argument(0), height: try call.arguments.argument(1))
                return []
            },
            .replying("SetProducing", in: "b", out: "") { call throws(DBusError) in
                c.setProducing(try call.arguments.argument(0))
                return []
            },
            .replying("CloseSessions", in: "b", out: "") { call throws(DBusError) in
                let emit: Bool = try call.arguments.argument(0)
                BackendLog.write("control: CloseSessions(\(emit))")
                c.portal.closeAllSessions(emitClosed: emit)
                return []
            },
            .replying("RejectRestoreTokens", in: "b", out: "") { call throws(DBusError) in
                let reject: Bool = try call.arguments.argument(0)
                BackendLog.write("control: RejectRestoreTokens(\(reject))")
                c.portal.state.withLock { $0.rejectRestoreData = reject }
                return []
            },
            .replying("Stats", in: "", out: "a{sv}") { _ throws(DBusError) in [c.stats.dbusValue] },
            .replying("LastOptions", in: "s", out: "a{sv}") { call throws(DBusError) in
                [try c.lastOptions(method: try call.arguments.argument(0)).dbusValue]
            },
            .replying("Reset", in: "", out: "") { _ throws(DBusError) in
                BackendLog.write("control: Reset")
                c.portal.state.withLock { $0.reset() }
                return []
            },
        ])
    }

    /// `SetNextResponse(s method, u response)`: `method` is a portal method name or `*`.
    func setNextResponse(method name: String, response code: UInt32) throws(DBusError) {
        do {
            let method = name == "*" ? nil : try PortalMethod(name: name)
            let mode = try ResponseMode(code: code)
            BackendLog.write("control: SetNextResponse(\(name), \(code))")
            portal.state.withLock { $0.responses.set(mode, for: method) }
        } catch {
            throw error.dbusError
        }
    }

    /// `SetStreamOptions(a{sv} options)`: all keys are applied, or none when one is bad.
    func setStreamOptions(_ options: DBusVardict) throws(DBusError) {
        let result: Result<StreamOptions, BackendError> = portal.state.withLock { s in
            do throws(BackendError) {
                s.streamOptions = try s.streamOptions.applying(options)
                return .success(s.streamOptions)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let now): BackendLog.write("control: SetStreamOptions(\(options)) -> \(now.vardict)")
        case .failure(let error): throw error.dbusError
        }
    }

    /// `ResizeStreams(u width, u height)`: every live stream offers the new size now (renegotiation).
    func resizeStreams(width: UInt32, height: UInt32) throws(DBusError) {
        guard (1...16384).contains(width), (1...16384).contains(height) else {
            throw BackendError.invalidOption(key: "size", reason: "\(width)x\(height) is outside 1...16384").dbusError
        }
        BackendLog.write("control: ResizeStreams(\(width), \(height))")
        for stream in portal.liveStreams {
            do {
                try stream.producer.resize(width: Int(width), height: Int(height))
            } catch {
                throw BackendError.pipeWire(error).dbusError
            }
        }
    }

    /// `SetProducing(b producing)`: pauses or resumes every live stream.
    func setProducing(_ producing: Bool) {
        BackendLog.write("control: SetProducing(\(producing))")
        for stream in portal.liveStreams {
            if producing { stream.producer.resume() } else { stream.producer.pause() }
        }
    }

    /// `Stats() -> a{sv}`: `dialogs_shown`, `sessions_created`, `live_sessions`, `live_streams`, and
    /// `pending_requests` (requests parked by response 3).
    var stats: DBusVardict {
        portal.state.withLock { s in
            ["dialogs_shown": s.dialogsShown, "sessions_created": s.sessionsCreated,
             "live_sessions": UInt32(s.sessions.count), "live_streams": UInt32(s.liveStreams),
             "pending_requests": UInt32(s.parkedRequests.count)]
        }
    }

    /// `LastOptions(s method) -> a{sv}`: the options of the last call of `method`, `{}` before the first.
    func lastOptions(method name: String) throws(DBusError) -> DBusVardict {
        let method: PortalMethod
        do { method = try PortalMethod(name: name) } catch { throw error.dbusError }
        return portal.state.withLock { $0.lastOptions[method] } ?? [:]
    }
}
