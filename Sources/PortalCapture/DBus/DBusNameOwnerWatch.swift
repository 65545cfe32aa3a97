import Synchronization

/// The owners of one bus name over time, from ``DBusConnection/watchNameOwner(_:)``: the current owner first, then
/// every `NameOwnerChanged` (nil while unowned). Lives until released or ``cancel()``ed.
public final class DBusNameOwnerWatch: AsyncSequence, Sendable {
    public typealias Element = String?
    public typealias Failure = Never

    private let stream: AsyncStream<String?>
    private let subscription: DBusSignalSubscription
    private let state: State

    init(stream: AsyncStream<String?>, subscription: DBusSignalSubscription, state: State) {
        self.stream = stream
        self.subscription = subscription
        self.state = state
    }

    /// Stops watching (`RemoveMatch`) and ends iteration.
    public func cancel() {
        subscription.cancel()
        state.finish()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<String?>.Iterator
        let owner: DBusNameOwnerWatch
        public mutating func next() async -> String?? { await base.next() }
        public mutating func next(isolation actor: isolated (any Actor)?) async -> String?? {
            await base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), owner: self)
    }

    /// Orders the initial `GetNameOwner` answer before the changes: changes that arrive before it are older
    /// than it and dropped. Both are delivered on the connection's queue.
    final class State: Sendable {
        private let continuation: AsyncStream<String?>.Continuation
        private let hasInitial = Mutex(false)

        init(continuation: AsyncStream<String?>.Continuation) {
            self.continuation = continuation
        }

        func finish() { continuation.finish() }

        func initial(_ owner: String?) {
            hasInitial.withLock { $0 = true }
            continuation.yield(owner)
        }

        func changed(_ owner: String?) {
            guard hasInitial.withLock({ $0 }) else { return }
            continuation.yield(owner)
        }

        deinit { continuation.finish() }
    }
}
