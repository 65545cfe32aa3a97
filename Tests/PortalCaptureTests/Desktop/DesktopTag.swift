import Testing

extension Tag {
    /// Tests that need the headless test desktop (`scripts/test-desktop start`): a private session bus,
    /// PipeWire with WirePlumber, the real xdg-desktop-portal frontend and our backend.
    @Tag static var desktop: Self
}
