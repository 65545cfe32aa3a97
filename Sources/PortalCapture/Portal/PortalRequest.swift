/// One portal request: a method of a portal interface whose answer comes later as the
/// `org.freedesktop.portal.Request::Response(u response, a{sv} results)` signal on a request object.
///
/// The protocol, done the careful way:
/// 1. a random `handle_token` ([HandleToken]) predicts the request path
///    (``DesktopPortal/requestPath(uniqueName:token:)``), and `Response` is subscribed to **before** the call
///    (`AddMatch` acknowledged), so a fast answer cannot be missed: for every request path
///    (`path_namespace=/org/freedesktop/portal/desktop/request`), kept until the handle is known;
/// 2. the returned handle is never asserted on: the answer taken is the one at the handle returned, predicted or
///    not (a frontend that ignores `handle_token` may answer before the reply is even read);
/// 3. the wait is bounded by `timeout` (measured from the start of the call); when it passes, or the calling task
///    is cancelled, the request is closed (`org.freedesktop.portal.Request.Close`) and ``PortalError/timedOut(request:seconds:)``
///    or ``PortalError/cancelled`` is thrown; the frontend leaving the bus gives ``PortalError/portalVanished(during:)``;
/// 4. response 0 gives the results, 1 ``PortalError/cancelled``, 2 ``PortalError/ended``; anything malformed
///    gives ``PortalError/malformedReply(method:key:reason:)`` naming the key.
struct PortalRequest: Sendable {
    let connection: DBusConnection
    /// e.g. `org.freedesktop.portal.ScreenCast`
    let interface: String
    /// e.g. `SelectSources`
    let method: String
    let timeout: Duration

    /// Calls `interface.method(arguments..., options + handle_token)` on the frontend and returns the results of
    /// its Response 0.
    func perform(_ arguments: [DBusValue], options: DBusVardict, token: HandleToken = .random())
        async throws(PortalError) -> DBusVardict {
        let deadline = ContinuousClock.now + timeout
        guard let predicted = DesktopPortal.requestPath(uniqueName: connection.uniqueName, token: token) else {
            throw .busUnavailable(reason: "the connection has no unique name (\(connection.uniqueName))")
        }
        let owner = try await PortalRequest.watchFrontend(connection, method: method, interface: interface)
        var subscription = try await subscribeResponses()

        var body = options
        body.set("handle_token", token.value)
        let reply: [DBusValue]
        do {
            reply = try await connection.call(destination: DesktopPortal.busName, path: DesktopPortal.objectPath,
                                              interface: interface, member: method,
                                              body: arguments + [body.dbusValue], timeout: timeout)
        } catch {
            let failure = PortalError(error, interface: interface, method: method)
            switch failure {
            case .cancelled, .timedOut:
                // Given up before the reply came: the frontend may have made the request already, at the path
                // the specification predicts (as a dialog, say), so it is closed there.
                closeRequest(predicted)
            default:
                break
            }
            throw failure
        }
        let handle = try PortalRequest.handle(in: reply, method: method)
        if !handle.isDescendant(ofOrEqualTo: DesktopPortal.requestNamespace) {
            // Outside every request path the specification knows: followed there, from now on.
            subscription.cancel()
            subscription = try await subscribeResponse(at: handle)
        }

        switch await PortalRequest.wait(for: subscription, at: handle, owner: owner, until: deadline) {
        case .response(let signal):
            return try PortalRequest.results(of: signal.arguments, method: method)
        case .timedOut:
            closeRequest(handle)
            throw .timedOut(request: method, seconds: timeout.inSeconds)
        case .cancelled:
            closeRequest(handle)
            throw .cancelled
        case .vanished:
            throw .portalVanished(during: method)
        case .connectionEnded:
            throw .busUnavailable(reason: "the D-Bus connection closed while waiting for the answer to \(method)")
        }
    }

    // MARK: Steps

    /// Follows the owner of `org.freedesktop.portal.Desktop` (first element: the owner now).
    static func watchFrontend(_ connection: DBusConnection, method: String, interface: String)
        async throws(PortalError) -> DBusNameOwnerWatch {
        let watch: DBusNameOwnerWatch
        do {
            watch = try await connection.watchNameOwner(DesktopPortal.busName)
        } catch {
            throw PortalError(error, interface: interface, method: method)
        }
        return watch
    }

    /// `Response` at `path` only.
    private func subscribeResponse(at path: DBusObjectPath) async throws(PortalError) -> DBusSignalSubscription {
        do {
            return try await connection.subscribe(DBusMatchRule(sender: DesktopPortal.busName, path: path,
                                                                interface: DesktopPortal.requestInterface,
                                                                member: "Response"))
        } catch {
            throw PortalError(error, interface: interface, method: method)
        }
    }

    /// `Response` on any request object of the frontend's: the handle is known only once the call returns, and
    /// the answer may come before that.
    private func subscribeResponses() async throws(PortalError) -> DBusSignalSubscription {
        do {
            return try await connection.subscribe(DBusMatchRule(sender: DesktopPortal.busName,
                                                                pathNamespace: DesktopPortal.requestNamespace,
                                                                interface: DesktopPortal.requestInterface,
                                                                member: "Response"))
        } catch {
            throw PortalError(error, interface: interface, method: method)
        }
    }

    /// `org.freedesktop.portal.Request.Close` on `handle`, sent without waiting for a reply: the request is being
    /// abandoned (timed out or cancelled), so its answer would change nothing, and a cancelled task cannot await.
    private func closeRequest(_ handle: DBusObjectPath) {
        try? connection.send(destination: DesktopPortal.busName, path: handle,
                             interface: DesktopPortal.requestInterface, member: "Close")
    }

    // MARK: Reading replies (pure, unit-tested without a bus)

    /// The request handle `o` a portal method returns.
    static func handle(in reply: [DBusValue], method: String) throws(PortalError) -> DBusObjectPath {
        do {
            try reply.requireSignature("o")
            return try reply.argument(0, as: DBusObjectPath.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "handle")
        }
    }

    /// The results of a `Response(u response, a{sv} results)` body: response 0 → results, 1 → cancelled,
    /// 2 → ended, anything else → malformed.
    static func results(of arguments: [DBusValue], method: String) throws(PortalError) -> DBusVardict {
        let code: UInt32
        let results: DBusVardict
        do {
            code = try arguments.argument(0, as: UInt32.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "response")
        }
        do {
            results = try arguments.argument(1, as: DBusVardict.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "results")
        }
        switch code {
        case 0: return results
        case 1: throw .cancelled
        case 2: throw .ended
        default:
            throw .malformedReply(method: method, key: "response",
                                  reason: "unknown response code \(code) (expected 0, 1 or 2)")
        }
    }

    // MARK: Waiting

    private enum Outcome: Sendable {
        case response(DBusSignal)
        case timedOut
        case cancelled
        case vanished
        case connectionEnded
    }

    /// The first of: the Response at `handle`, the deadline, the frontend's owner changing, the task being
    /// cancelled. Responses at other paths (other requests of this connection) are passed over.
    private static func wait(for subscription: DBusSignalSubscription, at handle: DBusObjectPath,
                             owner: DBusNameOwnerWatch, until deadline: ContinuousClock.Instant) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await signal in subscription where signal.path == handle { return .response(signal) }
                return Task.isCancelled ? .cancelled : .connectionEnded
            }
            group.addTask {
                await PortalRequest.ownerChange(owner)
            }
            group.addTask {
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return .timedOut
                } catch {
                    return .cancelled
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
    }

    /// Returns when the owner differs from the first one seen (left, or replaced by a new frontend that knows
    /// nothing of this request).
    private static func ownerChange(_ owner: DBusNameOwnerWatch) async -> Outcome {
        var current: String?
        for await next in owner {
            if let current, next != current { return .vanished }
            current = next
        }
        return Task.isCancelled ? .cancelled : .connectionEnded
    }
}

extension PortalError {
    /// A decoding error at `key` (with the decoder's own path inside it) as ``malformedReply(method:key:reason:)``.
    static func malformed(_ error: DBusError, method: String, at key: String) -> PortalError {
        switch error {
        case .malformed(let path, let reason):
            let inner = path.components.filter {
                if case .argument = $0 { return false }
                return true
            }
            let location = inner.isEmpty ? key : "\(key) / \(DBusValuePath(inner))"
            return .malformedReply(method: method, key: location, reason: reason)
        default:
            return .malformedReply(method: method, key: key, reason: error.description)
        }
    }
}
