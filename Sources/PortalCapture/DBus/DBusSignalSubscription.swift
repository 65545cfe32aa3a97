/// A live signal subscription: an `AddMatch` on the bus plus local routing. Iterate it for the matching
/// ``DBusSignal``s (buffered without limit from the moment ``DBusConnection/subscribe(_:)`` returned), or give a
/// handler to ``DBusConnection/subscribe(_:handler:)``.
///
/// Lifetime: the subscription lasts until ``cancel()``, until it is released (the subscription and every
/// iterator over it), or until the connection closes; then `RemoveMatch` is sent and iteration ends.
public final class DBusSignalSubscription: AsyncSequence, Sendable {
    public typealias Element = DBusSignal
    public typealias Failure = Never

    /// The rule sent to `org.freedesktop.DBus.AddMatch`.
    public let rule: DBusMatchRule
    private let stream: AsyncStream<DBusSignal>
    private let record: SubscriptionRecord
    private weak let engine: DBusConnectionEngine?

    init(rule: DBusMatchRule, stream: AsyncStream<DBusSignal>, record: SubscriptionRecord, engine: DBusConnectionEngine) {
        self.rule = rule
        self.stream = stream
        self.record = record
        self.engine = engine
    }

    deinit { cancel() }

    /// Unsubscribes (`RemoveMatch`, not awaited) and ends iteration. Idempotent.
    public func cancel() {
        guard let engine else { return record.finish() }
        let id = record.id
        engine.queue.async { engine.removeSubscription(id) }
    }

    /// Signals that matched but whose body could not be decoded (e.g. a unix fd that could not be duplicated),
    /// and so were not delivered.
    public var droppedCount: Int { record.dropped.load(ordering: .relaxed) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<DBusSignal>.Iterator
        /// Keeps the subscription alive while someone iterates.
        let owner: DBusSignalSubscription

        public mutating func next() async -> DBusSignal? { await base.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> DBusSignal? {
            await base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), owner: self)
    }
}
