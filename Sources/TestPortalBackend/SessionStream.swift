import PortalTestSupport

/// One stream of a started screen-cast session: a real PipeWire node (`VideoProducerStream`, memfd buffers)
/// in the desktop's PipeWire, showing the test content, as a compositor makes one per chosen source.
final class SessionStream: Sendable {
    let source: CaptureSource
    let producer: VideoProducerStream
    /// The size announced in `Start`'s results (the stream options' size when it started).
    let size: (width: Int, height: Int)

    /// Creates the node. In cursor mode metadata it attaches `SPA_META_Cursor` with `TestCursor`; in
    /// embedded mode the cursor is drawn into the pixels.
    init(core: PipeWireCore, source: CaptureSource, options: StreamOptions, cursorMode: CursorMode,
         nodeName: String) throws(PipeWireError) {
        self.source = source
        size = (options.width, options.height)
        var producerOptions = VideoProducerOptions(format: options.videoFormat, nodeName: nodeName)
        producerOptions.cursorMetadata = cursorMode == .metadata
        producerOptions.maxCursorSize = max(TestCursor.width, TestCursor.height)
        producerOptions.properties = ["node.description": "pwrecord test \(source.kind.rawValue) \(source.index)"]
        let content = FrameContent(options: options, drawsCursor: cursorMode == .embedded)
        producer = try VideoProducerStream(core: core, options: producerOptions,
                                           cursor: cursorMode == .metadata ? TestCursor.provider : nil,
                                           render: content.renderer)
    }

    /// Waits until PipeWire announced the node; returns its global id (what `Start` reports). Up to 20 s, as a
    /// compositor's backend waits for its own streams: on a loaded two-core CI machine the node once took over
    /// the default 5 s, and `Start` failed (Response 2) though nothing was wrong.
    func waitUntilReady() async throws(PipeWireError) -> UInt32 {
        try await producer.waitUntilReady(timeout: .seconds(20)).id
    }

    /// The `(ua{sv})` entry of `Start`'s `streams`: node id, `size (ii)`, `source_type u`, and for
    /// monitors `position (ii)` (monitors side by side).
    func streamEntry(nodeID: UInt32) -> DBusValue {
        var properties: DBusVardict = ["source_type": source.kind.sourceType]
        properties["size"] = .structure([.int32(Int32(size.width)), .int32(Int32(size.height))])
        if source.kind == .monitor {
            properties["position"] = .structure([.int32(Int32(source.index * size.width)), .int32(0)])
        }
        return .structure([.uint32(nodeID), properties.dbusValue])
    }

    func stop() { producer.stop() }
}
