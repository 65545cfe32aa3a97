import CPipeWire

/// One-time initialisation of the PipeWire client library (`pw_init`). A lazily initialised global
/// constant runs its initialiser exactly once, thread-safely; there is no mutable state. The library is
/// never deinitialised (`pw_deinit`), as any stream may still be running at process exit.
enum PipeWireLibrary {
    private static let initialized: Bool = {
        pw_init(nil, nil)
        return true
    }()

    /// Calls `pw_init` the first time; later calls return at once.
    static func ensureInitialized() {
        _ = initialized
    }
}
