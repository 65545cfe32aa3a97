import Foundation

/// The client of `org.freedesktop.portal.ScreenCast` (on `org.freedesktop.portal.Desktop`,
/// `/org/freedesktop/portal/desktop`): what the running portal can do, sessions step by step, and the whole flow
/// the recorder uses (``start(_:appID:consent:parentWindow:)``).
///
/// ```swift
/// let portal = try ScreenCastPortal()                                   // the session bus
/// let session = try await portal.start(ScreenCastOptions().sources(.monitor).cursor(.embedded),
///                                      appID: "org.example.App",
///                                      consent: ConsentMemory(maxAge: .seconds(480)))
/// let fd = try await session.openPipeWireRemote()                       // then pw_context_connect_fd(fd.take()!)
/// let node = session.streams[0].nodeID
/// ```
public final class ScreenCastPortal: PortalInterfaceClient {
    /// `org.freedesktop.portal.ScreenCast`
    public static let interface = "org.freedesktop.portal.ScreenCast"

    public let connection: DBusConnection
    public let timeouts: PortalTimeouts

    /// Uses `connection` (which stays open for as long as sessions made here are used).
    public init(connection: DBusConnection, timeouts: PortalTimeouts = .standard) {
        self.connection = connection
        self.timeouts = timeouts
    }

    // MARK: What the portal can do

    /// Reads `version`, `AvailableSourceTypes` and `AvailableCursorModes` (`org.freedesktop.DBus.Properties.GetAll`).
    /// Throws ``PortalError/portalNotFound`` when no frontend owns `org.freedesktop.portal.Desktop`,
    /// ``PortalError/interfaceMissing(interface:)`` when it has no ScreenCast (no backend implements it).
    public func capabilities() async throws(PortalError) -> ScreenCastCapabilities {
        let properties = try await ScreenCastPortal.readProperties(connection, interface: Self.interface,
                                                                    timeout: timeouts.call)
        return try ScreenCastCapabilities(properties: properties)
    }

    /// `GetAll(interface)` on the frontend; a missing interface (the frontend answers `InvalidArgs`,
    /// `UnknownInterface` or `UnknownObject`) is ``PortalError/interfaceMissing(interface:)``.
    static func readProperties(_ connection: DBusConnection, interface: String, timeout: Duration)
        async throws(PortalError) -> DBusVardict {
        do {
            return try await connection.allProperties(destination: DesktopPortal.busName, path: DesktopPortal.objectPath,
                                                      interface: interface, timeout: timeout)
        } catch .remote(name: "org.freedesktop.DBus.Error.InvalidArgs", _) {
            throw .interfaceMissing(interface: interface)
        } catch {
            throw PortalError(error, interface: interface, method: "Properties.GetAll(\(interface))")
        }
    }

    // MARK: Step by step

    /// `org.freedesktop.portal.ScreenCast.CreateSession(a{sv} options)` with a random `session_handle_token`.
    /// `Session::Closed` is subscribed to on the predicted session path before the call (and on the returned
    /// path if it differs). `capabilities` (read now when nil) are what ``ScreenCastSession/selectSources(_:)``
    /// checks options against.
    public func createSession(capabilities: ScreenCastCapabilities? = nil) async throws(PortalError) -> ScreenCastSession {
        let portalCapabilities: ScreenCastCapabilities
        if let capabilities {
            portalCapabilities = capabilities
        } else {
            portalCapabilities = try await self.capabilities()
        }
        let token = HandleToken.random()
        guard let predicted = DesktopPortal.sessionPath(uniqueName: connection.uniqueName, token: token) else {
            throw .busUnavailable(reason: "the connection has no unique name (\(connection.uniqueName))")
        }
        let lifecycle = PortalSessionLifecycle()
        var asked = false
        do {
            try await lifecycle.follow(connection, path: predicted)
            let request = PortalRequest(connection: connection, interface: Self.interface, method: "CreateSession",
                                        timeout: timeouts.call)
            asked = true
            let results = try await request.perform([], options: ["session_handle_token": token.value])
            let handle = try ScreenCastPortal.sessionHandle(in: results)
            if handle != predicted { try await lifecycle.follow(connection, path: handle) }
            return ScreenCastSession(handle: handle, capabilities: portalCapabilities, connection: connection,
                                     timeouts: timeouts, lifecycle: lifecycle)
        } catch {
            lifecycle.finish(.byClient)   // drops the subscriptions; nobody else knows this session
            // Given up after asking (cancelled, timed out, an unreadable answer): the portal may have made the
            // session all the same, and it would live as long as this connection. Closed at the predicted path,
            // without waiting (a cancelled task cannot); a Close of a session that was never made is refused,
            // harmlessly. CI caught it: a start cancelled just after the backend made its session left it open.
            if asked {
                try? connection.send(destination: DesktopPortal.busName, path: predicted,
                                     interface: DesktopPortal.sessionInterface, member: "Close")
            }
            throw error
        }
    }

    /// `session_handle` from CreateSession's results: `s` by the specification, `o` accepted too; it must be a valid
    /// object path.
    static func sessionHandle(in results: DBusVardict) throws(PortalError) -> DBusObjectPath {
        let method = "CreateSession"
        let key = "results / key 'session_handle'"
        guard let value = results["session_handle"]?.unwrappingVariants else {
            throw .malformedReply(method: method, key: key,
                                  reason: "missing (present: \(results.keys.joined(separator: ", ")))")
        }
        switch value {
        case .objectPath(let path):
            return path
        case .string(let text):
            guard let path = try? DBusObjectPath(text) else {
                throw .malformedReply(method: method, key: key, reason: "'\(text)' is not an object path")
            }
            return path
        default:
            throw .malformedReply(method: method, key: key, reason: "expected s, got \(value.type)")
        }
    }

    // MARK: The whole flow

    /// CreateSession → SelectSources → Start for `appID`, with remembered consent:
    /// - every option is checked against the portal's capabilities before any call;
    /// - with `consent` (enabled, portal version 4): `persist_mode` 2 is asked for unless `options` set one, and the
    ///   app's restore token is sent when it is younger than the consent memory and was granted for the same
    ///   sources (``ScreenCastOptions/consentSelection``; an older one, or one for other sources, is not sent);
    /// - a sent token that is refused or unusable (the request answers 2 or an error) is dropped and the whole flow
    ///   is retried **once** without it;
    /// - a token from `Start` is stored when `persist_mode` is 2 (a mode 1 token is the frontend's for this
    ///   connection only): with the time of the consent it restored when the same token came back, else now.
    ///
    /// On failure every session made here is closed. ``PortalError/cancelled`` means the user declined: not a failure.
    public func start(_ options: ScreenCastOptions, appID: String, consent: ConsentMemory? = nil,
                      parentWindow: String = "") async throws(PortalError) -> ScreenCastSession {
        let capabilities = try await self.capabilities()
        var options = options
        let remembering = consent.flatMap { $0.isEnabled ? $0 : nil }
        // Remembering switched off (consent-memory 0): a token kept from before must not come back later.
        if let consent, !consent.isEnabled { consent.forget(appID) }
        var storedTokenUsed = false
        // When the stored token brings the grant back (the same token comes back from Start), the consent is
        // still the one given then: it keeps that time, so the memory runs out counted from the user's answer,
        // not from the latest use.
        var consentGiven: (token: String, issued: Date)?
        let selection = options.consentSelection
        if let remembering, capabilities.version >= ScreenCastOptions.Version.persistence {
            if options.persistMode == nil { options.persistMode = .persistent }
            if options.restoreToken == nil, let entry = remembering.entry(for: appID, selection: selection) {
                options.restoreToken = entry.token
                storedTokenUsed = true
                consentGiven = (entry.token, entry.issued)
            }
        }
        _ = try options.encoded(for: capabilities)

        var report = ConsentReport(tokenSent: options.restoreToken != nil)
        let session: ScreenCastSession
        do {
            session = try await attempt(options, capabilities: capabilities, parentWindow: parentWindow)
        } catch {
            guard report.tokenSent, ScreenCastPortal.tokenMayBeAtFault(error) else { throw error }
            if storedTokenUsed { remembering?.forget(appID) }
            consentGiven = nil
            report.tokenRefused = true
            options.restoreToken = nil
            session = try await attempt(options, capabilities: capabilities, parentWindow: parentWindow)
        }
        if let remembering, options.persistMode == .persistent, let token = session.restoreToken {
            let issued = consentGiven.flatMap { $0.token == token ? $0.issued : nil } ?? Date()
            do {
                try remembering.remember(token, for: appID, selection: selection, now: issued)
                report.tokenStored = true
            } catch {
                report.storeError = "\(error)"
            }
        }
        session.setConsent(report)
        return session
    }

    private func attempt(_ options: ScreenCastOptions, capabilities: ScreenCastCapabilities, parentWindow: String)
        async throws(PortalError) -> ScreenCastSession {
        let session = try await createSession(capabilities: capabilities)
        do {
            try await session.selectSources(options)
            try await session.start(parentWindow: parentWindow)
            return session
        } catch {
            await session.close()
            throw error
        }
    }

    /// Errors that a refused or unusable restore token can cause (the backend answering 2, the frontend rejecting
    /// the token's form, a session closed because of it). The user declining, timeouts and a missing portal are not.
    static func tokenMayBeAtFault(_ error: PortalError) -> Bool {
        switch error {
        case .ended, .invalidArgument, .sessionClosed, .dbus, .malformedReply: true
        default: false
        }
    }
}
