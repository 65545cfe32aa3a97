/// A first-in first-out buffer of fixed capacity whose storage is allocated once: push and pop are O(1) and
/// never allocate, as the data thread's hand-off needs.
struct RingBuffer<Element> {
    private var slots: [Element?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    var capacity: Int { slots.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == slots.count }

    /// `read` of the first element, in place: no copy of the element (a copy of a frame is retains and
    /// releases).
    func first<T>(_ read: (Element) -> T) -> T? {
        guard count > 0, let value = slots[head].map(read) else { return nil }
        return value
    }

    /// Appends `element`; the caller makes room first (`isFull` is false).
    mutating func append(_ element: Element) {
        precondition(!isFull, "RingBuffer.append on a full buffer")
        slots[(head + count) % slots.count] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head = (head + 1) % slots.count
        count -= 1
        return element
    }
}
