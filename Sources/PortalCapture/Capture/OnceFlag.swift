import Synchronization

/// Something that happens once, from any thread: the first `claim()` returns true, every later one false.
final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)

    func claim() -> Bool { !claimed.exchange(true, ordering: .relaxed) }
}
