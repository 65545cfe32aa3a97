/// A first-in first-out buffer of fixed capacity whose storage is allocated once: push and pop are O(1) and
/// never allocate, as the data thread's hand-off needs.
struct RingBuffer<Element>: ~Copyable {
    // Storage of its own rather than an array of optionals: no uniqueness check or copy-on-write path, no
    // optional to wrap, test and destroy per slot, no division per index. A frame then goes in and out through
    // a few cache lines of code (bench/capture/footprint). Noncopyable, so the storage has one owner.
    private let slots: UnsafeMutablePointer<Element>
    let capacity: Int
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = .allocate(capacity: self.capacity)
    }

    deinit {
        var index = head
        for _ in 0..<count {
            (slots + index).deinitialize(count: 1)
            index = index + 1 == capacity ? 0 : index + 1
        }
        slots.deallocate()
    }

    /// The slots' storage, for `CacheWarmer`.
    var storage: UnsafeRawPointer { UnsafeRawPointer(slots) }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    /// `read` of the first element, in place: no copy of the element (a copy of a frame is retains and
    /// releases).
    func first<T>(_ read: (borrowing Element) -> T) -> T? {
        guard count > 0 else { return nil }
        return read(slots[head])
    }

    /// Appends `element`; the caller makes room first (`isFull` is false).
    mutating func append(_ element: consuming Element) {
        precondition(!isFull, "RingBuffer.append on a full buffer")
        let end = head + count
        (slots + (end < capacity ? end : end - capacity)).initialize(to: element)
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = (slots + head).move()
        head = head + 1 == capacity ? 0 : head + 1
        count -= 1
        return element
    }
}
