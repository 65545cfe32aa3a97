import Synchronization

/// A `ScreenCastProvider` test double with no portal: each cast is a `VideoProducerStream` in this process
/// on the default PipeWire daemon (or `remote`), drawing `TestPattern`, "granted" at once or declined on
/// demand. For recorder tests of what the real portal cannot be made to do at a given moment; the real path
/// is tested through `PortalScreenCastProvider` on the test desktop.
public final class LocalScreenCastProvider: ScreenCastProvider {
    public struct Behaviour: Sendable {
        public var format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(30))
        /// The next `startCast` throws this instead of granting.
        public var failNext: RecordingError?
        /// `unavailability()` answers this.
        public var unavailable: String?
        public var remote: String?
        /// How long the "dialog" stays open before the grant (nothing by default).
        public var consentDelay: Duration?
        /// The cast's node exists and links but never sends a frame (a compositor that stalls).
        public var silent = false
        public init() {}
    }

    private let state = Mutex<(behaviour: Behaviour, calls: Int, grants: [LocalGrant])>((Behaviour(), 0, []))
    private let changes: AsyncStream<Void>
    private let changesContinuation: AsyncStream<Void>.Continuation

    public init(_ behaviour: Behaviour = Behaviour()) {
        (changes, changesContinuation) = AsyncStream<Void>.makeStream()
        state.withLock { $0.behaviour = behaviour }
    }

    public var behaviour: Behaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue }; changesContinuation.yield() }
    }

    /// How many times `startCast` was called (a policy deny must leave it at 0).
    public var startCalls: Int { state.withLock { $0.calls } }

    public func unavailability() async -> String? { state.withLock { $0.behaviour.unavailable } }
    public func availabilityChanges() -> AsyncStream<Void> { changes }

    public func startCast(_ request: ScreenCastRequest) async throws(RecordingError) -> any ScreenCastGrant {
        let behaviour = state.withLock { s -> Behaviour in
            s.calls += 1
            let b = s.behaviour
            s.behaviour.failNext = nil
            return b
        }
        if let error = behaviour.failNext { throw error }
        if let delay = behaviour.consentDelay { try? await Task.sleep(for: delay) }
        do {
            let core = try PipeWireCore(name: "pwrecord-local-cast", remote: behaviour.remote)
            let producer = try VideoProducerStream(
                core: core, options: VideoProducerOptions(format: behaviour.format, nodeName: "local-cast-\(request.appID)"),
                cursor: request.cursor == .metadata ? TestCursor.provider : nil, render: TestPattern.render)
            let node = try await producer.waitUntilReady()
            if behaviour.silent { producer.pause() }
            let grant = LocalGrant(core: core, producer: producer, nodeID: node.id,
                                   size: (behaviour.format.width, behaviour.format.height))
            state.withLock { $0.grants.append(grant) }
            return grant
        } catch {
            throw .failedToStart(reason: "local cast: \(error)")
        }
    }

    /// Closes every live cast from "the desktop's side": the producer goes away, and with `signal` the
    /// grant's `closed` stream finishes too (like `Session.Closed`).
    public func closeSessions(signal: Bool) {
        for grant in state.withLock({ $0.grants }) { grant.closeFromDesktop(signal: signal) }
    }
}

final class LocalGrant: ScreenCastGrant {
    let core: PipeWireCore
    let producer: VideoProducerStream
    let nodeID: UInt32
    let announcedSize: (width: Int, height: Int)?
    let closed: AsyncStream<Void>
    private let closedContinuation: AsyncStream<Void>.Continuation

    init(core: PipeWireCore, producer: VideoProducerStream, nodeID: UInt32, size: (Int, Int)) {
        self.core = core
        self.producer = producer
        self.nodeID = nodeID
        announcedSize = size
        (closed, closedContinuation) = AsyncStream<Void>.makeStream()
    }

    func closeFromDesktop(signal: Bool) {
        producer.stop()
        if signal { closedContinuation.finish() }
    }

    func close() async {
        producer.stop()
        core.close()
        closedContinuation.finish()
    }
}
