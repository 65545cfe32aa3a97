import Testing

extension Tag {
    /// Integration tests that need the headless test desktop (`scripts/test-desktop start`).
    @Tag static var desktop: Self
}
