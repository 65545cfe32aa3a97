/// The `cursor_mode` of `org.freedesktop.impl.portal.ScreenCast.SelectSources` (one bit of
/// `AvailableCursorModes`).
enum CursorMode: UInt32, Sendable {
    /// No pointer in the stream.
    case hidden = 1
    /// The pointer drawn into the pixels.
    case embedded = 2
    /// The pointer as `SPA_META_Cursor` metadata.
    case metadata = 4
}
