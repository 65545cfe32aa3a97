import Foundation
import Testing
import PortalTestSupport

/// The README's test command, scripts/test, under CI (`CI=true`): integration tests never skip, so a test desktop
/// that fails to start fails the run. scripts/test runs for real (scripts/setup, scripts/test-desktop, a real
/// desktop) with `swift` replaced by a stand-in (nothing is built; its `swift test` records what it saw) and
/// `apt-get` by a recorder (nothing is installed).
@Suite("Under CI the test command never skips the integration tests", .serialized)
struct TestCommandTests {
    /// The stand-ins: `swift build` does nothing, `swift build --show-bin-path` names `bin-path/` (where the test
    /// puts a `pwrecord-test-portal`), `swift test` writes its environment, the desktop's recorded processes and
    /// whether the portal answered, then exits `FAKE_TEST_STATUS`.
    static func tools() throws -> FakeTools {
        let fake = try FakeTools()
        try fake.addRecorder("apt-get")
        try fake.add("sudo", #"exec "$@""#)
        try fake.add("swift", #"""
            echo "swift $*" >>"$FAKE/calls"
            case $1 in
              build) [ "${2:-}" != --show-bin-path ] || echo "$FAKE/bin-path"; exit 0 ;;
              test)
                printf 'PWRECORD_TEST_DESKTOP=%s\nCI=%s\n' "${PWRECORD_TEST_DESKTOP:-}" "${CI:-}" >"$FAKE/test-env"
                cp "$PWRECORD_DESKTOP_DIR/pids" "$FAKE/desktop-pids"
                /usr/bin/timeout 5 /usr/bin/dbus-send --bus="$DBUS_SESSION_BUS_ADDRESS" --print-reply=literal \
                  --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
                  string:org.freedesktop.portal.Desktop >"$FAKE/portal-owned" 2>&1
                exit "${FAKE_TEST_STATUS:-0}" ;;
            esac
            exit 64
            """#)
        return fake
    }

    /// What scripts/test needs from the environment of this test process, made explicit: CI on, no desktop of
    /// the caller's to reuse or keep.
    static let ciEnvironment = ["CI": "true", "PWRECORD_DESKTOP_DIR": "", "PWRECORD_DESKTOP_KEEP": "",
                                "PWRECORD_TEST_PORTAL": ""]

    /// The state directories of desktops started under the stand-ins' `TMPDIR` (kept when a start failed or the
    /// tests did).
    static func desktops(in fake: FakeTools) -> [RunningDesktop] {
        let tmp = fake.root.appendingPathComponent("tmp")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
        return names.filter { $0.hasPrefix("pwrecord-desktop.") }.map { RunningDesktop(stateDirectory: tmp.path + "/" + $0) }
    }

    /// "name pid starttime" lines as `scripts/test-desktop` records them.
    static func processes(in text: String) -> [RecordedProcess] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 3, let pid = Int32(f[1]), let start = UInt64(f[2]) else { return nil }
            return RecordedProcess(name: String(f[0]), pid: pid, startTime: start)
        }
    }

    @Test("--no-desktop is refused under CI=true before anything is installed, built or run")
    func noDesktopIsRefusedUnderCI() async throws {
        let fake = try Self.tools()
        defer { fake.remove() }
        let run = try await onOwnThread { fake.run("scripts/test", ["--no-desktop"], environment: Self.ciEnvironment) }
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--no-desktop is refused under CI=true"), "\(run.stderr)")
        #expect(try fake.calls() == [])
    }

    @Test("a test desktop that fails to start fails the run before any test runs, and leaves no process behind",
          .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func desktopThatFailsToStartFailsTheRun() async throws {
        let fake = try Self.tools()
        defer { fake.remove() }
        try fake.add("bin-path/pwrecord-test-portal", #"echo "stand-in backend: refusing to start" >&2; exit 1"#)
        let run = try await onOwnThread { fake.run("scripts/test", environment: Self.ciEnvironment) }

        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("FAILED: backend exited before"), "\(run.stderr)")
        #expect(run.stderr.contains("the test desktop did not start"), "\(run.stderr)")
        #expect(try fake.calls() == ["swift build --build-tests", "swift build --show-bin-path"], "no swift test")
        #expect(fake.text("test-env") == nil, "no test ran")

        let desktops = Self.desktops(in: fake)
        try #require(desktops.count == 1, "the failed start keeps its state and logs: \(desktops.map(\.stateDirectory))")
        let failed = desktops[0]
        let log = try String(contentsOfFile: failed.stateDirectory + "/logs/backend.log", encoding: .utf8)
        #expect(log.contains("stand-in backend: refusing to start"), "the stand-in backend was the one started")
        let started = Self.processes(in: try String(contentsOfFile: failed.stateDirectory + "/pids.stopped", encoding: .utf8))
        #expect(Set(started.map(\.name)).isSuperset(of: ["dbus", "pipewire", "wireplumber", "backend"]), "\(started)")
        #expect(started.filter(\.isRunning).isEmpty, "still running: \(started.filter(\.isRunning))")
        #expect(failed.processesInItsEnvironment().isEmpty, "unrecorded processes survived")
    }

    @Test("with a desktop that starts, the tests run on it with PWRECORD_TEST_DESKTOP=1, their status is the run's, and the desktop is stopped",
          .tags(.desktop), .enabled(if: TestDesktop.isAvailable))
    func testsRunOnTheDesktopWhichIsStoppedAfter() async throws {
        let desktop = try #require(RunningDesktop.current())
        let backend = try #require(try desktop.recordedProcesses().first { $0.name == "backend" }, "the desktop has no backend")
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(backend.pid)/exe")
        let fake = try Self.tools()
        defer { fake.remove() }
        try FileManager.default.createDirectory(at: fake.root.appendingPathComponent("bin-path"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fake.root.path + "/bin-path/pwrecord-test-portal",
                                                   withDestinationPath: binary)
        let run = try await onOwnThread {
            fake.run("scripts/test", environment: Self.ciEnvironment.merging(["FAKE_TEST_STATUS": "3"]) { _, new in new })
        }

        #expect(run.status == 3, "the tests' status is the run's: \(run.stderr)")
        // The whole run, in two: the recorder's interruption timings run on their own after the rest.
        let alone = #"RecorderTests\.(PipeWireKilledTests|ScreenRecorderTests/sessionClosedInterrupts)"#
        #expect(try fake.calls() == ["swift build --build-tests", "swift build --show-bin-path", "swift test --skip \(alone)",
                                     "swift test --skip-build --filter \(alone)"])
        #expect(fake.text("test-env") == "PWRECORD_TEST_DESKTOP=1\nCI=true\n")
        #expect(fake.text("portal-owned")?.contains("boolean true") == true, "the portal answered: \(fake.text("portal-owned") ?? "-")")
        let started = Self.processes(in: try #require(fake.text("desktop-pids")))
        #expect(Set(started.map(\.name)).isSuperset(of: ["dbus", "pipewire", "wireplumber", "backend", "frontend"]), "\(started)")
        #expect(started.filter(\.isRunning).isEmpty, "still running after the run: \(started.filter(\.isRunning))")
        for stopped in Self.desktops(in: fake) {
            #expect(stopped.processesInItsEnvironment().isEmpty, "unrecorded processes survived")
        }
    }

    @Test("the test binary under CI=true without the desktop stops with an error instead of skipping")
    func testBinaryFailsUnderCIWithoutTheDesktop() async throws {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let arguments = ["120", binary, "--testing-library", "swift-testing", "--filter", "PortalCaptureTests.TestDesktopTests"]
        func run(ci: String) async throws -> ToolRun {
            try await onOwnThread {
                // SWIFT_BACKTRACE: the expected crash needs no symbolicated backtrace (it costs CPU others' timings feel).
                ToolRun.run("/usr/bin/timeout", arguments,
                            environment: ["CI": ci, "PWRECORD_TEST_DESKTOP": "", "SWIFT_BACKTRACE": "enable=no"])
            }
        }
        let skipping = try await run(ci: "false")
        #expect(skipping.status == 0, "outside CI the desktop suites skip: \(skipping.stderr.suffix(2000))")
        #expect(skipping.stderr.contains("skipped"), "\(skipping.stderr.suffix(2000))")

        let ci = try await run(ci: "true")
        #expect(ci.status != 0, "under CI=true the run must fail: \(ci.stderr.suffix(2000))")
        #expect(ci.stderr.contains("CI=true but the test desktop is not running"), "\(ci.stderr.suffix(2000))")
    }
}
