import Foundation

/// Test support: the headless test desktop started by `scripts/test-desktop start` (docs/test-desktop.md), which
/// exports `PWRECORD_TEST_DESKTOP=1`. Integration suites are enabled only while it runs
/// (`.enabled(if: TestDesktop.isAvailable)`); under CI (`CI=true`) a missing desktop is a failure, not a skip.
public enum TestDesktop {
    /// Whether `PWRECORD_TEST_DESKTOP` is `1`; stops the run when it is not and `CI` is `true`.
    public static var isAvailable: Bool {
        let env = ProcessInfo.processInfo.environment
        let up = env["PWRECORD_TEST_DESKTOP"] == "1"
        if !up && env["CI"] == "true" { fatalError("CI=true but the test desktop is not running (PWRECORD_TEST_DESKTOP unset)") }
        return up
    }
}
