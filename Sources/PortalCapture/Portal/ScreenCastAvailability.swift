/// Whether screen casting can be asked for now: a frontend owns `org.freedesktop.portal.Desktop` and offers
/// `org.freedesktop.portal.ScreenCast` (with what it can do), or why not.
public enum ScreenCastAvailability: Sendable, Equatable, CustomStringConvertible {
    case available(ScreenCastCapabilities)
    /// Usually ``PortalError/portalNotFound`` or ``PortalError/interfaceMissing(interface:)``.
    case unavailable(PortalError)

    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .available(let capabilities): "available: \(capabilities)"
        case .unavailable(let error): "unavailable: \(error)"
        }
    }
}

extension ScreenCastPortal {
    /// The availability now: reads the ScreenCast properties (no error escapes; it is the answer).
    public func availability() async -> ScreenCastAvailability {
        do {
            return .available(try await capabilities())
        } catch {
            return .unavailable(error)
        }
    }

    /// The availability now, then each change: follows `org.freedesktop.DBus.NameOwnerChanged` for
    /// `org.freedesktop.portal.Desktop`; when the frontend appears (or is replaced) the ScreenCast properties are read
    /// again, when it leaves the answer is ``PortalError/portalNotFound``. Equal answers in a row are yielded once.
    /// The stream ends when the connection closes; stopping iteration stops the watch.
    public func availabilityChanges() -> AsyncStream<ScreenCastAvailability> {
        let (stream, continuation) = AsyncStream<ScreenCastAvailability>.makeStream(bufferingPolicy: .unbounded)
        let task = Task { [connection] in
            let watch: DBusNameOwnerWatch
            do throws(DBusError) {
                watch = try await connection.watchNameOwner(DesktopPortal.busName)
            } catch {
                continuation.yield(.unavailable(PortalError(error, interface: Self.interface,
                                                            method: "watch \(DesktopPortal.busName)")))
                continuation.finish()
                return
            }
            var last: ScreenCastAvailability?
            for await owner in watch {
                // The first answer is asked for even without an owner: a frontend the bus starts on demand is
                // started by the question (its arrival then repeats the answer, which is not yielded again).
                let now: ScreenCastAvailability = owner == nil && last != nil
                    ? .unavailable(.portalNotFound) : await availability()
                if now != last {
                    continuation.yield(now)
                    last = now
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
