import PortalCapture

/// Everything the backend remembers, kept in one `Mutex` of ``TestPortal``: scripted answers, stream
/// options, sessions, parked requests, counters.
struct BackendState: Sendable {
    /// The start-up stream options (command line), what `Reset` returns to.
    let defaultStreamOptions: StreamOptions
    var streamOptions: StreamOptions
    var responses = ScriptedResponses()
    /// `RejectRestoreTokens(true)`: restore data makes `SelectSources` / `Start` answer 2.
    var rejectRestoreData = false
    /// Consent dialogs that would have been shown.
    var dialogsShown: UInt32 = 0
    var sessionsCreated: UInt32 = 0
    var sessions: [DBusObjectPath: BackendSession] = [:]
    /// Requests told to never answer, by `handle`.
    var parkedRequests: [DBusObjectPath: BackendRequest] = [:]
    var lastOptions: [PortalMethod: DBusVardict] = [:]
    /// Ids of the restore data this backend issued (kept across `Reset`: tokens outlive it).
    var issuedRestoreIDs: Set<String> = []
    var screenshotsTaken: UInt32 = 0
    /// Numbers sessions for node names; never reset.
    var sessionSerial: UInt32 = 0

    init(streamOptions: StreamOptions) {
        defaultStreamOptions = streamOptions
        self.streamOptions = streamOptions
    }

    var liveStreams: Int { sessions.values.reduce(0) { $0 + $1.streams.count } }

    /// `Reset`: no scripted answers, the start-up stream options, rejection off, counters and remembered
    /// options cleared. Live sessions and parked requests stay.
    mutating func reset() {
        streamOptions = defaultStreamOptions
        responses = ScriptedResponses()
        rejectRestoreData = false
        dialogsShown = 0
        sessionsCreated = 0
        lastOptions = [:]
    }
}
