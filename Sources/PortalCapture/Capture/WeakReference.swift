/// A weak reference in a `let`, for closures that run per frame: reading it is one weak load.
///
/// A `[weak self]` capture is a mutable box, and each read of it is a dynamic exclusivity check
/// (`swift_beginAccess`, which looks up a thread-local through libswiftCore and the dynamic loader): on
/// PipeWire's data thread that was 2% of the thread's samples in a profile (bench/README.md, capture).
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
