import Dispatch
import Foundation
import Testing
@testable import PortalCapture

@Suite("Frame pool")
struct FramePoolTests {
    @Test("a storage is handed out again once its frame is released, not before")
    func reusesReleasedStorage() {
        let pool = FramePool(capacity: 64, maximumCount: 4)
        var first: FrameStorage? = pool.acquire()
        let firstAddress = first.map(ObjectIdentifier.init)
        let second = pool.acquire()
        #expect(ObjectIdentifier(second) != firstAddress, "in use: not handed out twice")
        first = nil
        let third = pool.acquire()
        #expect(ObjectIdentifier(third) == firstAddress)
        #expect(pool.statistics.allocations == 2 && pool.statistics.reuses == 1)
        withExtendedLifetime((second, third)) {}
    }

    @Test("the pool keeps at most its maximum and counts overflow allocations")
    func bounded() {
        let pool = FramePool(capacity: 16, maximumCount: 2)
        let held = (0 ..< 3).map { _ in pool.acquire() }
        let statistics = pool.statistics
        #expect(statistics.allocations == 3 && statistics.overflows == 1 && statistics.kept == 2)
        withExtendedLifetime(held) {}
    }

    @Test("another capacity retires the kept storages")
    func capacityChange() {
        let pool = FramePool(capacity: 16, maximumCount: 4)
        _ = pool.acquire()
        let bigger = pool.acquire(capacity: 32)
        #expect(bigger.capacity == 32)
        #expect(pool.statistics.kept == 1 && pool.statistics.capacity == 32 && pool.statistics.allocations == 2)
    }

    @Test("storages are never shared between threads acquiring at once")
    func concurrentUse() {
        let pool = FramePool(capacity: 8, maximumCount: 3)
        let collisions = Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0 ..< 2_000 {
                let storage = pool.acquire()
                let token = UInt64(worker) << 32 | UInt64(round)
                storage.bytes.storeBytes(of: token, as: UInt64.self)
                if round % 7 == 0 { sched_yield() }
                if storage.bytes.load(as: UInt64.self) != token { collisions.add() }
            }
        }
        #expect(collisions.value == 0)
        #expect(pool.statistics.kept <= 3)
    }
}
