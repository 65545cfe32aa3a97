import Foundation

/// Runs `body` on a new thread of its own and returns its result to the awaiting test.
///
/// For blocking waits a test cannot avoid: a child process (`scripts/test-desktop`, `dbus-send`, `pw-cli`), a
/// blocked sink. Swift concurrency runs every test's async work, and synchronous tests too, on a cooperative pool
/// with one thread per core (two on CI); a test blocking one of those threads stalls every other test's tasks in
/// the process, including the recorder's own (measured, see `offThePool` in Tests/pwrecordTests/Support).
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
