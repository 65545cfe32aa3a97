/// A first-come first-served lock over the shared test backend (see ``TestPortalControl/exclusively(_:)``).
actor BackendLease {
    static let shared = BackendLease()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
    }
}
