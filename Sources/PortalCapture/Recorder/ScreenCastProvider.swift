/// What the recorder needs from the desktop: consent, and a PipeWire stream of what the user chose.
///
/// The production provider is `PortalScreenCastProvider` (the `org.freedesktop.portal.ScreenCast` portal).
/// It is a protocol so a recorder can be given another one (a direct PipeWire node in tests, a future
/// compositor-specific path) without changing the recorder.
public protocol ScreenCastProvider: Sendable {
    /// Why screen casting is unavailable right now (no portal on the bus, no ScreenCast interface), or nil.
    func unavailability() async -> String?
    /// Yields whenever availability may have changed (the portal appeared or left the bus).
    func availabilityChanges() -> AsyncStream<Void>
    /// Asks the user (the portal's dialog, or a remembered choice) and starts the cast. Throws
    /// `userDeclined`, `notPermitted` (the desktop's permissions refuse this app), `portalUnavailable`,
    /// `failedToStart`, `unsupported` or `invalidParameter`.
    func startCast(_ request: ScreenCastRequest) async throws(RecordingError) -> any ScreenCastGrant
}

/// One screen-cast request: what the user is asked to share.
public struct ScreenCastRequest: Sendable, Equatable {
    public var appID: String
    public var sources: SourceTypes
    public var multiple: Bool
    public var cursor: CursorModes
    /// How long a remembered consent (restore token) is honoured; nil = as long as the portal keeps it,
    /// zero = ask every time.
    public var consentMemory: Duration?

    public init(appID: String, sources: SourceTypes, multiple: Bool, cursor: CursorModes, consentMemory: Duration?) {
        self.appID = appID
        self.sources = sources
        self.multiple = multiple
        self.cursor = cursor
        self.consentMemory = consentMemory
    }
}

/// A granted, running screen cast: the PipeWire connection and node to read, and a way to end it.
public protocol ScreenCastGrant: Sendable {
    /// The connection the node lives on (for the portal: from `OpenPipeWireRemote`).
    var core: PipeWireCore { get }
    /// The stream to record (the portal's first stream; see docs/portal.md for backend quirks).
    var nodeID: UInt32 { get }
    /// The size the portal announced, if any.
    var announcedSize: (width: Int, height: Int)? { get }
    /// Finishes when the session is closed from the other side (`org.freedesktop.portal.Session.Closed`).
    var closed: AsyncStream<Void> { get }
    /// Ends the cast (`org.freedesktop.portal.Session.Close`) and the PipeWire connection.
    func close() async
}
