import Foundation

/// Runs blocking `work` (waiting for a child process, polling its output) on a thread of its own and returns
/// its result to the awaiting test.
///
/// Why: Swift concurrency runs every test's async work on a cooperative pool with one thread per core (two
/// on the CI machine). A test that waits for a `pwrecord` child with `usleep`/`waitUntilExit` on one of those
/// threads holds it for seconds; two such tests stall every other test's tasks in the process, including the
/// recorder's own. Measured: the PipeWire-killed test's stop came 1.1–1.2 s after the kill in full runs, and
/// 0.01 s when it ran alone. The same holds for `DispatchQueue.global()`: on Linux its workers are the pool's
/// (libdispatch's default-QoS root queue), so a read that blocks for a child's whole run gets a `Thread` too.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.start()
    }
}

/// `offThePool` for work that cannot fail.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.start()
    }
}
