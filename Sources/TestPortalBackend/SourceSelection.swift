import PortalCapture

/// What a session's `SelectSources` asked for (the options the frontend passes on, see
/// docs/test-desktop.md): `types u`, `multiple b`, `cursor_mode u`, `persist_mode u`, `restore_data (suv)`.
struct SourceSelection: Sendable {
    var types: UInt32 = 1
    var multiple = false
    var cursorMode = CursorMode.hidden
    /// 0 none, 1 while the app runs, 2 until revoked.
    var persistMode: UInt32 = 0
    /// The raw `restore_data`, present when the client sent a restore token the frontend knew.
    var restoreData: DBusValue?

    /// Reads the options; throws for a value of the wrong type or an unknown cursor or persist mode.
    init(options: DBusVardict) throws(DBusError) {
        types = try options.valueIfPresent("types", as: UInt32.self) ?? 1
        multiple = try options.valueIfPresent("multiple", as: Bool.self) ?? false
        let cursor = try options.valueIfPresent("cursor_mode", as: UInt32.self) ?? 1
        guard let mode = CursorMode(rawValue: cursor) else {
            throw .malformed(path: [.key("cursor_mode")], reason: "\(cursor) is not 1, 2 or 4")
        }
        cursorMode = mode
        persistMode = try options.valueIfPresent("persist_mode", as: UInt32.self) ?? 0
        guard persistMode <= 2 else { throw .malformed(path: [.key("persist_mode")], reason: "\(persistMode) is above 2") }
        restoreData = options["restore_data"]
    }

    init() {}
}
