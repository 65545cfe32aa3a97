import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture
import PortalTestSupport

/// The watcher needs only inotify (no desktop): these run with the unit tests. Serialized so the descriptor
/// count in the release test sees only its own watchers.
@Suite("Policy watcher", .serialized)
struct PolicyWatcherTests {
    /// Every decision the watcher published, with when it arrived.
    final class DecisionLog: Sendable {
        private let entries = Mutex<[(at: ContinuousClock.Instant, decision: PolicyDecision)]>([])

        func record(_ decision: PolicyDecision) { entries.withLock { $0.append((.now, decision)) } }

        var count: Int { entries.withLock { $0.count } }

        /// How long after `start` the first published decision matching `predicate` arrived; nil if none within `limit`.
        func waitFor(since start: ContinuousClock.Instant, limit: Duration = .seconds(3),
                     _ predicate: (PolicyDecision) -> Bool) async -> Duration? {
            while ContinuousClock.now - start < limit {
                let hit = entries.withLock { $0.first { $0.at >= start && predicate($0.decision) } }
                if let hit { return hit.at - start }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }
    }

    static func watch(_ fixture: PolicyFixture, clock: @escaping @Sendable () -> Date = { Date() },
                      timeZone: TimeZone = PolicyTestTime.utc) throws -> (PolicyWatcher, DecisionLog) {
        let log = DecisionLog()
        let watcher = try PolicyWatcher(subject: .alice, locations: fixture.locations, timeZone: timeZone, clock: clock,
                                        onChange: { log.record($0) })
        return (watcher, log)
    }

    static func expectWithinOneSecond(_ elapsed: Duration?, _ what: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(elapsed != nil, "no new decision after \(what)", sourceLocation: sourceLocation)
        if let elapsed { #expect(elapsed < .seconds(1), "\(what) took \(elapsed)", sourceLocation: sourceLocation) }
    }

    @Test("the first decision is ready when the watcher is created")
    func initialDecision() throws {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nmax-duration = 5m")
        let (watcher, log) = try Self.watch(fixture)
        #expect(watcher.decision.maxDuration == .seconds(300))
        #expect(watcher.policy.files == [fixture.system + "/policy.conf"])
        #expect(log.count == 0)
    }

    @Test("the user's groups are read again when deciding anew: a group change reaches a watcher already running")
    func groupsReadAgain() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[group:pwrecord-test-kids]\nrecording = deny")
        // The user as looked up before an administrator took them out of the group: the group database no
        // longer lists it (no such group exists), the subject still does.
        var subject = try PolicySubject.current()
        subject.groups.append("pwrecord-test-kids")
        let log = DecisionLog()
        let watcher = try PolicyWatcher(subject: subject, locations: fixture.locations, timeZone: PolicyTestTime.utc,
                                        onChange: { log.record($0) })
        #expect(!watcher.decision.isAvailable)
        let start = ContinuousClock.now
        fixture.write(file, "[defaults]\nmax-duration = 5m\n[group:pwrecord-test-kids]\nrecording = deny")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { $0.isAvailable }, "an edit after the group change")
        #expect(watcher.decision.isAvailable && watcher.decision.maxDuration == .seconds(300))
    }

    @Test("an edit in place is published within 1 s")
    func editInPlace() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[defaults]\nrecording = allow")
        let (watcher, log) = try Self.watch(fixture)
        #expect(watcher.decision.isAvailable)
        let start = ContinuousClock.now
        fixture.write(file, "[defaults]\nrecording = deny")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { !$0.isAvailable }, "an in-place edit")
        #expect(!watcher.decision.isAvailable)
    }

    @Test("a replace by rename, as editors save, is published within 1 s")
    func renameReplace() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[defaults]\nrecording = deny")
        let (watcher, log) = try Self.watch(fixture)
        #expect(!watcher.decision.isAvailable)
        let start = ContinuousClock.now
        fixture.replace(file, "[defaults]\nrecording = allow\nmax-duration = 10m")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { $0.isAvailable }, "a rename-replace")
        #expect(watcher.decision.maxDuration == .seconds(600))
        // And a second save the same way (the directory watch survives the first rename).
        let again = ContinuousClock.now
        fixture.replace(file, "[defaults]\nrecording = allow\nmax-duration = 20m")
        Self.expectWithinOneSecond(await log.waitFor(since: again) { $0.maxDuration == .seconds(1_200) }, "a second rename-replace")
    }

    @Test("deleting a drop-in and creating one are published")
    func dropInCreatedAndDeleted() async throws {
        let fixture = PolicyFixture()
        fixture.makeDirectory(fixture.dropIns)
        let (watcher, log) = try Self.watch(fixture)
        #expect(watcher.decision.isAvailable)
        let created = ContinuousClock.now
        fixture.write(fixture.dropIns + "/50-deny.conf", "[group:kids]\nrecording = deny")
        Self.expectWithinOneSecond(await log.waitFor(since: created) { !$0.isAvailable }, "creating a drop-in")
        let deleted = ContinuousClock.now
        fixture.remove(fixture.dropIns + "/50-deny.conf")
        Self.expectWithinOneSecond(await log.waitFor(since: deleted) { $0.isAvailable }, "deleting a drop-in")
    }

    @Test("policy.d appearing after the watcher started is watched")
    func dropInDirectoryAppears() async throws {
        let fixture = PolicyFixture()
        let (watcher, log) = try Self.watch(fixture)
        defer { withExtendedLifetime(watcher) {} }  // releasing the watcher stops it
        let start = ContinuousClock.now
        fixture.makeDirectory(fixture.dropIns)
        try await Task.sleep(for: .milliseconds(100))  // the watcher has moved its watch into policy.d by now...
        fixture.write(fixture.dropIns + "/10.conf", "[defaults]\nmicrophone = deny")  // ...so this edit is seen there
        Self.expectWithinOneSecond(await log.waitFor(since: start) { !$0.microphoneAllowed }, "a file in a new policy.d")
    }

    @Test("the system directory appearing later is noticed")
    func systemDirectoryAppears() async throws {
        let fixture = PolicyFixture(createSystemDirectory: false)
        let (watcher, log) = try Self.watch(fixture)
        #expect(watcher.decision == .unrestricted)
        let start = ContinuousClock.now
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nrecording = deny")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { !$0.isAvailable }, "creating /etc/pwrecord")
    }

    @Test("a user file created later, in a directory that did not exist, is noticed")
    func userFileAppears() async throws {
        let fixture = PolicyFixture()
        let (watcher, log) = try Self.watch(fixture)
        defer { withExtendedLifetime(watcher) {} }  // releasing the watcher stops it
        let start = ContinuousClock.now
        fixture.write(fixture.userFile, "[defaults]\nmax-duration = 1m")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { $0.maxDuration == .seconds(60) }, "creating the user file")
    }

    @Test("a drop-in that is a symlink: an edit of its target, and a directory on the way made writable, are published within 1 s")
    func linkedDropInTargetIsWatched() async throws {
        let fixture = PolicyFixture()
        let target = fixture.root + "/srv/policy/ext.conf"
        fixture.write(target, "[defaults]\nrecording = allow")
        fixture.link(fixture.dropIns + "/30-ext.conf", to: target)
        let (watcher, log) = try Self.watch(fixture)
        defer { withExtendedLifetime(watcher) {} }  // releasing the watcher stops it
        #expect(watcher.decision.isAvailable, "\(watcher.decision.reasons)")
        let start = ContinuousClock.now
        fixture.replace(target, "[defaults]\nrecording = deny")
        Self.expectWithinOneSecond(await log.waitFor(since: start) { !$0.isAvailable }, "replacing the link's target")
        let again = ContinuousClock.now
        fixture.replace(target, "[defaults]\nrecording = allow\nmax-duration = 5m")
        Self.expectWithinOneSecond(await log.waitFor(since: again) { $0.maxDuration == .seconds(300) }, "a second replace")
        let opened = ContinuousClock.now
        chmod(fixture.root + "/srv", 0o777)
        Self.expectWithinOneSecond(await log.waitFor(since: opened) {
            $0.reasons.contains { if case .writableLinkTarget = $0 { true } else { false } }
        }, "chmod 777 on a directory on the way")
    }

    @Test("making a system file world-writable makes recording unavailable")
    func chmodIsNoticed() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[defaults]\nrecording = allow")
        let (watcher, log) = try Self.watch(fixture)
        defer { withExtendedLifetime(watcher) {} }  // releasing the watcher stops it
        let start = ContinuousClock.now
        chmod(file, 0o666)
        Self.expectWithinOneSecond(await log.waitFor(since: start) {
            $0.reasons == [.writableByOthers(path: file, mode: 0o100666)]
        }, "chmod 666")
    }

    @Test("the decision is re-evaluated at the hours boundary")
    func hoursBoundary() async throws {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nhours = 08:00-20:00")
        // A clock that read 19:59:58.500 a moment ago and runs at real speed: the window closes in under 1.5 s,
        // which leaves a loaded machine time to make the watcher before the boundary.
        let offset = PolicyTestTime.date("2025-03-24 19:59:58").addingTimeInterval(0.5).timeIntervalSince(Date())
        let clock: @Sendable () -> Date = { Date().addingTimeInterval(offset) }
        let (watcher, log) = try Self.watch(fixture, clock: clock)
        let start = ContinuousClock.now
        let untilBoundary = PolicyTestTime.date("2025-03-24 20:00").timeIntervalSince(clock())
        #expect(watcher.decision.isAvailable)
        #expect(watcher.decision.nextChange == PolicyTestTime.date("2025-03-24 20:00"))
        let elapsed = await log.waitFor(since: start) { !$0.isAvailable }
        #expect(elapsed != nil)
        if let elapsed {
            let late = elapsed - .milliseconds(Int64(untilBoundary * 1_000))
            #expect(late > .milliseconds(-5) && late < .seconds(1), "closed \(late) after the boundary")
        }
        #expect(watcher.decision.nextChange == PolicyTestTime.date("2025-03-25 08:00"))
    }

    @Test("decisions() starts with the current decision, follows changes, and ends on cancel")
    func decisionStream() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[defaults]\nrecording = allow")
        let (watcher, _) = try Self.watch(fixture)
        var iterator = watcher.decisions().makeAsyncIterator()
        #expect(await iterator.next()?.isAvailable == true)
        let start = ContinuousClock.now
        fixture.write(file, "[defaults]\nrecording = deny")
        #expect(await iterator.next()?.isAvailable == false)
        Self.expectWithinOneSecond(ContinuousClock.now - start, "a change through decisions()")
        watcher.cancel()
        #expect(await iterator.next() == nil)
        var late = watcher.decisions().makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test("a broken edit makes the decision fail closed, and fixing it recovers")
    func brokenEditFailsClosed() async throws {
        let fixture = PolicyFixture()
        let file = fixture.system + "/policy.conf"
        fixture.write(file, "[defaults]\nrecording = allow")
        let (watcher, log) = try Self.watch(fixture)
        defer { withExtendedLifetime(watcher) {} }  // releasing the watcher stops it
        let broken = ContinuousClock.now
        fixture.replace(file, "[defaults]\nrecording = allow\nhours = 25:00-26:00")
        Self.expectWithinOneSecond(await log.waitFor(since: broken) {
            $0.reasons.map(\.description) == ["\(file):3: bad hours '25:00-26:00': time '25:00' is out of range (00:00 to 24:00)"]
        }, "a broken edit")
        let fixed = ContinuousClock.now
        fixture.replace(file, "[defaults]\nrecording = allow")
        Self.expectWithinOneSecond(await log.waitFor(since: fixed) { $0.isAvailable }, "the fix")
    }

    /// The inotify descriptors this process has open that watch `directory` (other tests run watchers at the
    /// same time, so only the ones whose `/proc/self/fdinfo` names the directory's inode count).
    static func inotifyDescriptors(watching directory: String) -> Int {
        var st = stat()
        guard stat(directory, &st) == 0 else { return -1 }
        let inode = "ino:" + String(st.st_ino, radix: 16) + " "
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { fd in
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) == "anon_inode:inotify",
                  let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + fd, encoding: .utf8) else { return false }
            return info.contains(inode)
        }.count
    }

    @Test("releasing a watcher stops its thread and closes its descriptors")
    func releaseClosesDescriptors() async throws {
        let fixture = PolicyFixture()
        let watched = fixture.system
        #expect(Self.inotifyDescriptors(watching: watched) == 0)
        var watchers: [PolicyWatcher] = []
        for _ in 0..<5 { watchers.append(try PolicyWatcher(subject: .alice, locations: fixture.locations)) }
        #expect(Self.inotifyDescriptors(watching: watched) == 5)
        watchers.removeAll()
        _ = await eventually(timeout: .seconds(2)) { Self.inotifyDescriptors(watching: watched) <= 0 }
        #expect(Self.inotifyDescriptors(watching: watched) == 0)
    }
}
