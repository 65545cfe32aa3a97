/// What to ask `org.freedesktop.portal.ScreenCast.SelectSources` for, as a value built fluently:
/// `ScreenCastOptions().sources([.monitor, .window]).cursor(.embedded).persist(.persistent)`.
///
/// Unset options are not sent (the portal then uses its defaults). An option the running portal cannot take fails
/// **before any call** (``encoded(for:)``): ``PortalError/requiresVersion(interface:needed:available:)`` for an
/// option newer than its version, ``PortalError/unsupported(what:available:)`` for a source type or cursor mode
/// outside its `Available*` properties. Nothing is ever dropped silently.
public struct ScreenCastOptions: Sendable, Equatable {
    /// `types` (u): which kinds of source the dialog offers. `.virtual` needs version 3.
    public var sources: SourceTypes?
    /// `multiple` (b): let the user pick more than one source.
    public var multiple: Bool?
    /// `cursor_mode` (u), version 2: exactly one of hidden, embedded, metadata. Bits this library does not know are
    /// not judged here; they are sent and the frontend decides (it answers `InvalidArgument` for a mode it does not
    /// offer).
    public var cursorMode: CursorModes?
    /// `persist_mode` (u), version 4: whether the portal remembers the choice and returns a `restore_token`.
    public var persistMode: PersistMode?
    /// `restore_token` (s), version 4: a token from an earlier `Start`, to skip the dialog.
    public var restoreToken: String?

    public init(sources: SourceTypes? = nil, multiple: Bool? = nil, cursorMode: CursorModes? = nil,
                persistMode: PersistMode? = nil, restoreToken: String? = nil) {
        self.sources = sources
        self.multiple = multiple
        self.cursorMode = cursorMode
        self.persistMode = persistMode
        self.restoreToken = restoreToken
    }

    public func sources(_ value: SourceTypes?) -> Self { var c = self; c.sources = value; return c }
    public func multiple(_ value: Bool?) -> Self { var c = self; c.multiple = value; return c }
    public func cursor(_ value: CursorModes?) -> Self { var c = self; c.cursorMode = value; return c }
    public func persist(_ value: PersistMode?) -> Self { var c = self; c.persistMode = value; return c }
    public func restoreToken(_ value: String?) -> Self { var c = self; c.restoreToken = value; return c }

    /// What a restore token was granted for: the source types and `multiple`, as remembered consent stores it
    /// beside the token. A token is sent back only for the same selection (a window chosen once must not come
    /// back when a monitor is asked for: a backend restoring without checking `types` would hand back the window
    /// with no dialog).
    public var consentSelection: String {
        "types=\(sources.map { String($0.rawValue) } ?? "default") multiple=\(multiple ?? false)"
    }

    /// The first versions of `org.freedesktop.portal.ScreenCast` that take each option.
    public enum Version {
        /// `cursor_mode` and `AvailableCursorModes`.
        public static let cursorMode: UInt32 = 2
        /// the `virtual` source type.
        public static let virtualSource: UInt32 = 3
        /// `persist_mode` and `restore_token`.
        public static let persistence: UInt32 = 4
    }

    /// The `SelectSources` options dict (without `handle_token`) for a portal with `capabilities`, or the reason
    /// it cannot take them. Pure: no D-Bus call.
    public func encoded(for capabilities: ScreenCastCapabilities) throws(PortalError) -> DBusVardict {
        let interface = ScreenCastPortal.interface
        let version = capabilities.version
        func require(_ needed: UInt32) throws(PortalError) {
            if version < needed {
                throw .requiresVersion(interface: interface, needed: needed, available: version)
            }
        }
        var dict = DBusVardict()
        if let sources {
            if sources.contains(.virtual) { try require(Version.virtualSource) }
            let missing = sources.subtracting(capabilities.sourceTypes)
            if !missing.isEmpty {
                throw .unsupported(what: "source type \(missing)", available: "\(capabilities.sourceTypes)")
            }
            dict.set("types", sources.rawValue)
        }
        if let multiple {
            dict.set("multiple", multiple)
        }
        if let cursorMode {
            try require(Version.cursorMode)
            let known = cursorMode.intersection([.hidden, .embedded, .metadata])
            let missing = known.subtracting(capabilities.cursorModes)
            if !missing.isEmpty {
                throw .unsupported(what: "cursor mode \(missing)", available: "\(capabilities.cursorModes)")
            }
            dict.set("cursor_mode", cursorMode.rawValue)
        }
        if let persistMode {
            try require(Version.persistence)
            dict.set("persist_mode", persistMode.rawValue)
        }
        if let restoreToken {
            try require(Version.persistence)
            dict.set("restore_token", restoreToken)
        }
        return dict
    }
}
