import Foundation
import Testing

/// scripts/setup: installs the Debian packages that are missing, non-interactively, and does nothing when all are
/// present. Run for real, with `apt-get` (and `sudo`) replaced by stand-ins that only record their command lines.
@Suite("scripts/setup installs what is missing, non-interactively, and nothing twice")
struct SetupScriptTests {
    @Test("with every package installed (as scripts/test leaves this machine) it calls no apt-get and prints nothing")
    func nothingToDoOnThisMachine() async throws {
        let fake = try FakeTools()
        defer { fake.remove() }
        try fake.addRecorder("apt-get")
        try fake.add("sudo", #"echo "sudo $*" >>"$FAKE/calls"; exec "$@""#)
        let run = try await onOwnThread { fake.run("scripts/setup") }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try fake.calls() == [], "a package is missing here (run scripts/setup), or setup installs regardless")
        #expect(run.stdout.isEmpty && run.stderr.isEmpty, "\(run.stdout)\(run.stderr)")
    }

    @Test("it installs exactly the missing packages with apt-get -y and DEBIAN_FRONTEND=noninteractive; a second run does nothing")
    func installsOnlyWhatIsMissingThenNothing() async throws {
        let fake = try FakeTools()
        defer { fake.remove() }
        // dpkg-query answers from a list of missing packages; apt-get install takes packages off it.
        try "ffmpeg\nlibyuv-dev\n".write(to: fake.root.appendingPathComponent("missing"), atomically: true, encoding: .utf8)
        try fake.add("dpkg-query", #"""
            package=${!#}
            if grep -qx -- "$package" "$FAKE/missing"; then
              echo "dpkg-query: no packages found matching $package" >&2; exit 1
            fi
            printf 'install ok installed'
            """#)
        try fake.add("apt-get", #"""
            echo "apt-get $* DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-}" >>"$FAKE/calls"
            if [ "$1" = install ]; then
              for p in "$@"; do grep -vx -- "$p" "$FAKE/missing" >"$FAKE/missing.new"; mv "$FAKE/missing.new" "$FAKE/missing"; done
            fi
            """#)
        try fake.add("sudo", #"exec "$@""#)

        // The caller's own DEBIAN_FRONTEND must not stand in for the script's.
        let first = try await onOwnThread { fake.run("scripts/setup", environment: ["DEBIAN_FRONTEND": ""]) }
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try fake.calls() == [
            "apt-get update -qq DEBIAN_FRONTEND=noninteractive",
            "apt-get install -y -qq --no-install-recommends libyuv-dev ffmpeg DEBIAN_FRONTEND=noninteractive",
        ])
        #expect(first.stderr.contains("installing libyuv-dev ffmpeg"), "\(first.stderr)")
        #expect(fake.text("missing") == "", "the stand-in installed both")

        let second = try await onOwnThread { fake.run("scripts/setup", environment: ["DEBIAN_FRONTEND": ""]) }
        #expect(second.status == 0, "\(second.stderr)")
        let calls = try fake.calls()
        #expect(calls.count == 2, "the second run called apt-get again: \(calls)")
        #expect(second.stdout.isEmpty && second.stderr.isEmpty, "\(second.stdout)\(second.stderr)")
    }
}
