/// Bus names: owning them (services) and watching their owners (clients checking that a service is there).
extension DBusConnection {
    /// Flags of `org.freedesktop.DBus.RequestName` (`DBUS_NAME_FLAG_*`).
    public struct RequestNameFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `DBUS_NAME_FLAG_ALLOW_REPLACEMENT`
        public static let allowReplacement = RequestNameFlags(rawValue: 0x1)
        /// `DBUS_NAME_FLAG_REPLACE_EXISTING`
        public static let replaceExisting = RequestNameFlags(rawValue: 0x2)
        /// `DBUS_NAME_FLAG_DO_NOT_QUEUE`
        public static let doNotQueue = RequestNameFlags(rawValue: 0x4)
    }

    /// What `RequestName` achieved when it did not fail.
    public enum RequestNameResult: UInt32, Sendable {
        /// `DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER`
        case primaryOwner = 1
        /// `DBUS_REQUEST_NAME_REPLY_IN_QUEUE`: someone else owns it; we are next in line.
        case inQueue = 2
        /// `DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER`
        case alreadyOwner = 4
    }

    /// Asks the bus for a well-known name (`org.freedesktop.DBus.RequestName`). Throws ``DBusError/nameTaken(_:)``
    /// when another connection owns it and we did not queue (`DBUS_REQUEST_NAME_REPLY_EXISTS`).
    @discardableResult
    public func requestName(_ name: String, flags: RequestNameFlags = [.doNotQueue]) async throws(DBusError)
        -> RequestNameResult {
        try DBusNames.validateBusName(name)
        let reply = try await call(destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
                                   member: "RequestName", body: [.string(name), .uint32(flags.rawValue)])
        let code = try reply.argument(0, as: UInt32.self)
        if code == 3 { throw .nameTaken(name) }
        guard let result = RequestNameResult(rawValue: code) else {
            throw .malformed(path: [.argument(0)], reason: "unknown RequestName reply \(code)")
        }
        return result
    }

    /// Gives a name back (`org.freedesktop.DBus.ReleaseName`). Returns false when we did not own it.
    @discardableResult
    public func releaseName(_ name: String) async throws(DBusError) -> Bool {
        try DBusNames.validateBusName(name)
        let reply = try await call(destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
                                   member: "ReleaseName", body: [.string(name)])
        return try reply.argument(0, as: UInt32.self) == 1
    }

    /// The unique name owning `name` now (`org.freedesktop.DBus.GetNameOwner`), or nil when nobody does.
    public func nameOwner(_ name: String) async throws(DBusError) -> String? {
        try DBusNames.validateBusName(name)
        do {
            let reply = try await call(destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
                                       member: "GetNameOwner", body: [.string(name)])
            return try reply.argument(0, as: String.self)
        } catch .remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _) {
            return nil
        }
    }

    /// Follows the owner of `name` through `org.freedesktop.DBus.NameOwnerChanged`: the watch yields the current
    /// owner first (nil when unowned), then every change, in bus order. Used to notice a portal appearing or
    /// going away. Keep the watch; releasing it unsubscribes.
    public func watchNameOwner(_ name: String) async throws(DBusError) -> DBusNameOwnerWatch {
        try DBusNames.validateBusName(name)
        let (stream, continuation) = AsyncStream<String?>.makeStream(bufferingPolicy: .unbounded)
        let state = DBusNameOwnerWatch.State(continuation: continuation)
        let subscription = try await subscribe(.nameOwnerChanged(name), handler: { signal in
            guard signal.arguments.count == 3, case .string(let owner) = signal.arguments[2] else { return }
            state.changed(owner.isEmpty ? nil : owner)
        }, onEnd: { state.finish() })
        // The reply is applied on the queue in dispatch order, so changes seen before it are older than it.
        let engine = self.engine
        let message = try engine.busCall("GetNameOwner", [.string(name)])
        let failure: DBusError? = await withCheckedContinuation { done in
            engine.queue.async {
                engine.startCall(message, id: engine.makeID(), member: "GetNameOwner", timeout: Self.defaultTimeout) {
                    switch $0 {
                    case .success(let reply):
                        if case .string(let owner)? = (try? reply.arguments())?.first {
                            state.initial(owner)
                            done.resume(returning: nil)
                        } else {
                            done.resume(returning: .malformed(path: [], reason: "GetNameOwner reply is not 's'"))
                        }
                    case .failure(.remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _)):
                        state.initial(nil)
                        done.resume(returning: nil)
                    case .failure(let error):
                        done.resume(returning: error)
                    }
                }
            }
        }
        if let failure { throw failure }
        return DBusNameOwnerWatch(stream: stream, subscription: subscription, state: state)
    }
}
