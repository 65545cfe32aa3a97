/// What the running ScreenCast portal says it can do: the properties `version`, `AvailableSourceTypes` and
/// `AvailableCursorModes` of `org.freedesktop.portal.ScreenCast` on `/org/freedesktop/portal/desktop`.
public struct ScreenCastCapabilities: Sendable, Equatable, CustomStringConvertible {
    /// The interface version (1 to 5 exist; xdg-desktop-portal 1.16 says 4 whatever its backend says).
    public var version: UInt32
    /// `AvailableSourceTypes`.
    public var sourceTypes: SourceTypes
    /// `AvailableCursorModes` (version 2 and later; empty before). Some GNOME versions report 0 here even
    /// though they draw the cursor: then no `cursor_mode` can be asked for.
    public var cursorModes: CursorModes

    public init(version: UInt32, sourceTypes: SourceTypes, cursorModes: CursorModes) {
        self.version = version
        self.sourceTypes = sourceTypes
        self.cursorModes = cursorModes
    }

    /// Reads the result of `org.freedesktop.DBus.Properties.GetAll("org.freedesktop.portal.ScreenCast")`.
    /// `version` and `AvailableSourceTypes` are required; `AvailableCursorModes` is absent before version 2 and
    /// then read as empty. A wrong type anywhere is ``PortalError/malformedReply(method:key:reason:)`` naming the key.
    public init(properties: DBusVardict) throws(PortalError) {
        let method = "Properties.GetAll(\(ScreenCastPortal.interface))"
        do {
            version = try properties.value("version", as: UInt32.self)
            sourceTypes = SourceTypes(rawValue: try properties.value("AvailableSourceTypes", as: UInt32.self))
            cursorModes = CursorModes(rawValue: try properties.valueIfPresent("AvailableCursorModes", as: UInt32.self) ?? 0)
        } catch {
            throw PortalError.malformed(error, method: method, at: "properties")
        }
    }

    public var description: String {
        "ScreenCast v\(version), sources \(sourceTypes), cursor modes \(cursorModes)"
    }
}
