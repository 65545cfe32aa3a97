/// A `CursorState` behind one reference, as `VideoFrame` holds it (see `VideoFrame.cursorBox`). Immutable:
/// a changed cursor is a new box.
final class CursorBox: Sendable {
    let state: CursorState

    init(_ state: CursorState) {
        self.state = state
    }
}
