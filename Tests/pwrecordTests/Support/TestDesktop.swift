import Foundation

/// The headless test desktop (scripts/test-desktop): integration suites run only when it is up; under CI
/// (`CI=true`) a missing desktop is a failure, not a skip.
enum TestDesktop {
    static var isAvailable: Bool {
        let env = ProcessInfo.processInfo.environment
        let up = env["PWRECORD_TEST_DESKTOP"] == "1"
        if !up && env["CI"] == "true" { fatalError("CI=true but the test desktop is not running (PWRECORD_TEST_DESKTOP unset)") }
        return up
    }
}
