/// Test support: waiting for something another thread or process does, by polling.
///
/// `eventually` checks `condition` at once and then every 10 ms until it holds or `timeout` has passed on the
/// continuous clock, checks it one last time, and returns whether it held. It never fails a test by itself:
/// wrap it in `#expect`, or ignore the result and assert on the state that follows. When the task is
/// cancelled it stops waiting and returns the last check at once.
///
///     #expect(await eventually(timeout: .seconds(2)) { sink.frames.count >= 10 })
///     #expect(await eventually { (try? await control.stat("live_sessions")) == 0 })
public func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    await eventually(timeout: timeout) { () async -> Bool in condition() }
}

/// `eventually(timeout:_:)` for a condition that has to await (a D-Bus call, an actor).
public func eventually(timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
    }
    return await condition()
}

/// The async-condition `eventually(timeout:_:)` under its older name, kept for the tests written against it.
public func pollAsync(timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    await eventually(timeout: timeout, condition)
}
