import Synchronization

/// Polls an async condition every 10 ms until it holds or `timeout` passes.
func pollAsync(timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Values collected from a handler on another thread.
final class Observations<Element: Sendable>: Sendable {
    private let list = Mutex<[Element]>([])
    func append(_ element: Element) { list.withLock { $0.append(element) } }
    var all: [Element] { list.withLock { $0 } }
}
