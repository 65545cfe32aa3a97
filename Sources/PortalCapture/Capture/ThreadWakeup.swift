import CPipeWire
import Glibc

/// A counting semaphore on a POSIX `sem_t`: how the data thread wakes the delivery thread.
///
/// Not `DispatchSemaphore`: the data thread signals once per frame after sleeping 16 ms, and every page of
/// code it runs then is cold (bench/README.md, capture). Dispatch's semaphore reaches the same `sem_post`
/// through the Swift overlay and libdispatch, two more libraries' pages per frame.
final class ThreadWakeup: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `semaphore` is allocated in init, freed in deinit, and used only
    // through the thread-safe sem_* calls in between.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// The semaphore's memory, for `CacheWarmer`.
    var semaphoreAddress: UnsafeRawPointer { UnsafeRawPointer(semaphore) }

    /// Wakes one waiter, or lets the next `wait()` return at once.
    func signal() {
        sem_post(semaphore)
    }

    /// Waits for a `signal()` (one each); a signal interrupting the wait does not end it.
    func wait() {
        while sem_wait(semaphore) != 0, errno == EINTR {}
    }

    /// Waits for a `signal()` at most `nanoseconds` (on the monotonic clock); false when the time ran out.
    func wait(nanoseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        while true {
            if cpw_sem_clockwait_monotonic(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
