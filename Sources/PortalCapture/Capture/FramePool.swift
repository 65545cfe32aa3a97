import Synchronization

/// Reuses `FrameStorage`s of one capacity so the capture path does not allocate per frame.
///
/// A storage handed out by `acquire` is in use while anything besides the pool refers to it (a queued
/// `VideoFrame`, a sink holding a frame); once the pool holds the only reference
/// (`isKnownUniquelyReferenced`) it is free and handed out again. The pool keeps at most `maximumCount`
/// storages; when all of them are in use, `acquire` still returns at once with a fresh storage the pool does
/// not keep (an *overflow*, counted), so a producer is never blocked or refused.
///
/// Asking for another capacity (the stream was resized) retires the kept storages: the pool lets go of
/// them (frames still using them keep them alive until released) and keeps storages of the new capacity.
///
/// Thread safety: every method may be called from any thread.
public final class FramePool: Sendable {
    /// What the pool did so far.
    public struct Statistics: Sendable, Equatable {
        /// Storages created, overflows included.
        public var allocations: Int = 0
        /// Times a kept storage was handed out again.
        public var reuses: Int = 0
        /// Storages created while every kept storage was in use (not kept by the pool).
        public var overflows: Int = 0
        /// Storages the pool keeps right now.
        public var kept: Int = 0
        /// The capacity of the kept storages.
        public var capacity: Int = 0
    }

    private struct State {
        var capacity: Int
        var storages: [FrameStorage] = []
        var statistics = Statistics()
    }

    /// The most storages the pool keeps.
    public let maximumCount: Int
    /// Whether the pool makes all `maximumCount` storages whenever it keeps none (the first `acquire`, a
    /// resize, after `drain`), so its memory is all there from the first frame rather than growing later.
    public let prefills: Bool
    private let state: Mutex<State>

    /// - Parameters:
    ///   - capacity: bytes per storage for `acquire()`; `acquire(capacity:)` may change it later.
    ///   - maximumCount: how many storages to keep (at least 1). Size it for the frames that can be alive at
    ///     once: the delivery queue's video capacity, plus one being produced and one being consumed.
    ///   - prefills: make all of them at the first `acquire` of a capacity (see `prefills`).
    public init(capacity: Int = 0, maximumCount: Int = 8, prefills: Bool = false) {
        self.maximumCount = max(1, maximumCount)
        self.prefills = prefills
        state = Mutex(State(capacity: max(0, capacity)))
    }

    /// A storage of the current capacity that nothing else refers to.
    public func acquire() -> FrameStorage {
        acquire(capacity: state.withLock { $0.capacity })
    }

    /// A storage of exactly `capacity` bytes that nothing else refers to; switches the pool to `capacity`
    /// when it differs from the current one.
    public func acquire(capacity: Int) -> FrameStorage {
        let capacity = max(1, capacity)
        return state.withLock { state in
            if state.capacity != capacity {
                state.storages.removeAll(keepingCapacity: true)
                state.capacity = capacity
            }
            if prefills && state.storages.isEmpty {
                state.storages = (0..<maximumCount).map { _ in FrameStorage(capacity: capacity) }
                state.statistics.allocations += maximumCount
            }
            for index in state.storages.indices where isKnownUniquelyReferenced(&state.storages[index]) {
                // The last outside reference was dropped on another thread; order its writes before ours.
                atomicMemoryFence(ordering: .acquiring)
                state.statistics.reuses += 1
                return state.storages[index]
            }
            let storage = FrameStorage(capacity: capacity)
            state.statistics.allocations += 1
            if state.storages.count < maximumCount {
                state.storages.append(storage)
            } else {
                state.statistics.overflows += 1
            }
            return storage
        }
    }

    /// Lets go of every kept storage (in-use ones live on until their frames are released).
    public func drain() {
        state.withLock { $0.storages.removeAll() }
    }

    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.kept = state.storages.count
            statistics.capacity = state.capacity
            return statistics
        }
    }
}
