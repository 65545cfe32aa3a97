import Foundation

/// A bounded queue drained by one dedicated thread: what keeps a heavy sink's `consume` cheap on the
/// delivery thread.
///
/// Items marked droppable (video frames) count against `capacity`; when the queue holds that many, the
/// oldest waiting droppable item gives way to the new one and is counted (`overflow == .drop`: the newest
/// picture is never the one lost), or the caller waits for room (`overflow == .block`, for offline use and
/// tests). Items that must not be dropped (audio, format changes) are always queued.
final class SampleWorker<Item: Sendable>: @unchecked Sendable {
    enum Overflow: String, Sendable, CaseIterable {
        case drop
        case block
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    // Taken items leave the array at once (it stays as short as the queue): a processed 8 MB frame must not
    // stay referenced, or the frame pool can never reuse its storage (measured: 530 MB kept at 1080p).
    private var items: [(item: Item, droppable: Bool)] = []
    private var droppableCount = 0
    private var finished = false
    private var exited = false
    private var droppedCount = 0

    let capacity: Int
    let overflow: Overflow

    /// Starts the thread; `handle` runs on it for every item in order, and `finish` once after the last.
    init(name: String, capacity: Int, overflow: Overflow,
         handle: @escaping @Sendable (Item) -> Void, finish: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.overflow = overflow
        let thread = Thread { [self] in
            run(handle: handle, finish: finish)
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues an item. Returns false when it could not be queued (after `finishAndWait`).
    @discardableResult
    func submit(_ item: Item, droppable: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !finished else { return false }
        if droppable {
            while droppableCount >= capacity {
                if overflow == .drop, let oldest = items.firstIndex(where: { $0.droppable }) {
                    items.remove(at: oldest)
                    droppableCount -= 1
                    droppedCount += 1
                    break
                }
                condition.wait()
                if finished { return false }
            }
            droppableCount += 1
        }
        items.append((item, droppable))
        condition.broadcast()
        return true
    }

    /// Items dropped so far.
    var dropped: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedCount
    }

    /// Lets the thread drain what is queued, run `finish`, and exit; returns when it has.
    func finishAndWait() {
        condition.lock()
        finished = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    private func run(handle: @Sendable (Item) -> Void, finish: @Sendable () -> Void) {
        while true {
            condition.lock()
            while items.isEmpty && !finished { condition.wait() }
            if items.isEmpty {
                condition.unlock()
                break
            }
            let next = items.removeFirst()
            if next.droppable { droppableCount -= 1 }
            condition.broadcast()
            condition.unlock()
            handle(next.item)
        }
        finish()
        condition.lock()
        exited = true
        condition.broadcast()
        condition.unlock()
    }
}
