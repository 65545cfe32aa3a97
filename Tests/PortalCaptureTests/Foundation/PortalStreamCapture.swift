import PortalCapture
import PortalTestSupport

/// Frames of one portal stream, read the way a client reads them: a PipeWire connection through the fd of
/// `OpenPipeWireRemote` (`PipeWireCore(connectingTo:)`) and a `VideoCaptureStream` on the node `Start` named.
struct PortalStreamCapture: Sendable {
    let core: PipeWireCore
    let stream: VideoCaptureStream
    let collector: FrameCollector

    /// Opens the remote for `session` and connects to `nodeID`; `frameHandler` replaces the collector's.
    static func open(_ portal: RawPortal, session: DBusObjectPath, nodeID: UInt32,
                     frameHandler: (@Sendable (VideoFrame) -> Void)? = nil) async throws -> PortalStreamCapture {
        let remote = try await portal.openPipeWireRemote(session)
        guard let fd = remote.take() else { throw RawPortalError.missing("the PipeWire remote fd") }
        let core = try PipeWireCore(connectingTo: fd, name: "pwrecord-foundation-test")
        do {
            _ = try await core.waitForNode { $0.id == nodeID }
            let collector = FrameCollector()
            let stream = try VideoCaptureStream(core: core, target: .node(id: nodeID),
                                                eventHandler: collector.eventHandler,
                                                frameHandler: frameHandler ?? collector.frameHandler)
            return PortalStreamCapture(core: core, stream: stream, collector: collector)
        } catch {
            core.close()
            throw error
        }
    }

    func stop() {
        stream.stop()
        core.close()
    }
}
