import PortalCapture

/// A `ScreenCastProvider` for a node that already exists (the `produce` process): "granted" at once, read on
/// a new connection to the default PipeWire daemon. Like a portal cast, the frames come from another process,
/// so the recorder's memory holds only what the recorder itself keeps (and the shared buffers it maps).
final class NodeScreenCastProvider: ScreenCastProvider {
    let nodeID: UInt32
    let size: (width: Int, height: Int)
    private let changes: AsyncStream<Void>
    private let changesContinuation: AsyncStream<Void>.Continuation

    init(nodeID: UInt32, size: (width: Int, height: Int)) {
        self.nodeID = nodeID
        self.size = size
        (changes, changesContinuation) = AsyncStream<Void>.makeStream()
    }

    func unavailability() async -> String? { nil }

    func availabilityChanges() -> AsyncStream<Void> { changes }

    func startCast(_ request: ScreenCastRequest) async throws(RecordingError) -> any ScreenCastGrant {
        do {
            return NodeGrant(core: try PipeWireCore(name: "pwrecord-bench-cast"), nodeID: nodeID, size: size)
        } catch {
            throw .failedToStart(reason: "cannot connect to PipeWire: \(error)")
        }
    }
}

/// The grant of a `NodeScreenCastProvider`: its connection and the node.
final class NodeGrant: ScreenCastGrant {
    let core: PipeWireCore
    let nodeID: UInt32
    let announcedSize: (width: Int, height: Int)?
    let closed: AsyncStream<Void>
    private let closedContinuation: AsyncStream<Void>.Continuation

    init(core: PipeWireCore, nodeID: UInt32, size: (width: Int, height: Int)) {
        self.core = core
        self.nodeID = nodeID
        announcedSize = size
        (closed, closedContinuation) = AsyncStream<Void>.makeStream()
    }

    func close() async {
        core.close()
        closedContinuation.finish()
    }
}
