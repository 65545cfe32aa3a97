import Synchronization

/// Values collected from a handler on another thread.
final class Observations<Element: Sendable>: Sendable {
    private let list = Mutex<[Element]>([])
    func append(_ element: Element) { list.withLock { $0.append(element) } }
    var all: [Element] { list.withLock { $0 } }
}
