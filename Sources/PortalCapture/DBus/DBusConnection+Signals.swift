/// Signal subscriptions by match rule.
extension DBusConnection {
    /// Subscribes to the signals matching `rule` and returns once the bus acknowledged
    /// `org.freedesktop.DBus.AddMatch`, so a method call made afterwards cannot produce a signal that is missed
    /// (the portal request pattern: subscribe to `Request.Response` on the predicted path, then call).
    ///
    /// A well-known `rule.sender` is resolved (`GetNameOwner`) and followed (`NameOwnerChanged`) first. Throws
    /// ``DBusError/invalidArgument(_:)`` for a bad rule, ``DBusError/remote(name:message:)`` when the bus refuses
    /// it (e.g. `org.freedesktop.DBus.Error.LimitsExceeded`), ``DBusError/disconnected``.
    public func subscribe(_ rule: DBusMatchRule) async throws(DBusError) -> DBusSignalSubscription {
        try await subscribe(rule, handler: nil)
    }

    /// As ``subscribe(_:)``, and also calls `handler` for every matching signal, on the connection's queue, in
    /// arrival order. Keep the returned subscription: releasing it unsubscribes.
    public func subscribe(_ rule: DBusMatchRule, handler: (@Sendable (DBusSignal) -> Void)?)
        async throws(DBusError) -> DBusSignalSubscription {
        try await subscribe(rule, handler: handler, onEnd: nil)
    }

    /// `onEnd` runs on the queue when the subscription ends (cancelled, released, connection closed).
    func subscribe(_ rule: DBusMatchRule, handler: (@Sendable (DBusSignal) -> Void)?, onEnd: (@Sendable () -> Void)?)
        async throws(DBusError) -> DBusSignalSubscription {
        try rule.validate()
        let (stream, continuation) = AsyncStream<DBusSignal>.makeStream(bufferingPolicy: .unbounded)
        let engine = self.engine
        let record = SubscriptionRecord(id: engine.makeID(), rule: rule, handler: handler,
                                        continuation: handler == nil ? continuation : nil, onEnd: onEnd)
        if handler != nil { continuation.finish() }
        let failure: DBusError? = await withCheckedContinuation { done in
            engine.queue.async { engine.addSubscription(record) { done.resume(returning: $0) } }
        }
        if let failure { throw failure }
        return DBusSignalSubscription(rule: rule, stream: stream, record: record, engine: engine)
    }
}
