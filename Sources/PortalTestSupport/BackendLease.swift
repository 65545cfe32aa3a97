/// A first-come first-served lock over the shared test backend (see ``TestPortalControl/exclusively(_:)``).
public actor BackendLease {
    public static let shared = BackendLease()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func release() {
        if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
    }
}
