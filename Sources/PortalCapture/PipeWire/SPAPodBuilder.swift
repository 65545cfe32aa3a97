import CPipeWire

/// Builds SPA pods (`struct spa_pod_builder`) from Swift with the non-variadic `spa_pod_builder_*`
/// functions (the variadic `spa_pod_builder_add` and the `SPA_POD_*` macros do not import).
///
/// The builder and every `spa_pod_frame` live on the heap, so their addresses stay stable from push to pop
/// (the builder keeps a pointer to the open frame). Several top-level pods can be built one after the other;
/// `withPods` hands them out as the `const struct spa_pod **` array that `pw_stream_connect` and
/// `pw_stream_update_params` take (both copy the pods).
final class SPAPodBuilder {
    private let data: UnsafeMutableRawPointer
    private let capacity: Int
    private let builder = UnsafeMutablePointer<spa_pod_builder>.allocate(capacity: 1)
    private var openFrames: [UnsafeMutablePointer<spa_pod_frame>] = []
    private var topLevelOffsets: [UInt32] = []
    private var failed = false

    init(capacity: Int = 8192) {
        self.capacity = capacity
        data = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        spa_pod_builder_init(builder, data, UInt32(capacity))
    }

    deinit {
        openFrames.forEach { $0.deallocate() }
        builder.deallocate()
        data.deallocate()
    }

    /// `spa_pod_builder_push_object(type, id)` ... `pop`: an object such as a Format or a ParamBuffers.
    func object(type: UInt32, id: UInt32, _ body: () -> Void) {
        if openFrames.isEmpty { topLevelOffsets.append(builder.pointee.state.offset) }
        let frame = push()
        if spa_pod_builder_push_object(builder, frame, type, id) < 0 { failed = true }
        body()
        pop(frame)
    }

    /// `spa_pod_builder_prop(key, flags)` followed by the value `body` writes.
    func prop(_ key: UInt32, flags: UInt32 = 0, _ body: () -> Void) {
        if spa_pod_builder_prop(builder, key, flags) < 0 { failed = true }
        body()
    }

    /// `spa_pod_builder_push_choice(type, flags)`: the first value is the default, then the alternatives
    /// (Enum), the min and max (Range) or the flag mask (Flags).
    func choice(_ type: spa_choice_type, flags: UInt32 = 0, _ body: () -> Void) {
        let frame = push()
        if spa_pod_builder_push_choice(builder, frame, type.rawValue, flags) < 0 { failed = true }
        body()
        pop(frame)
    }

    func id(_ value: UInt32) { if spa_pod_builder_id(builder, value) < 0 { failed = true } }
    func int(_ value: Int32) { if spa_pod_builder_int(builder, value) < 0 { failed = true } }
    func long(_ value: Int64) { if spa_pod_builder_long(builder, value) < 0 { failed = true } }
    func rectangle(_ width: UInt32, _ height: UInt32) {
        if spa_pod_builder_rectangle(builder, width, height) < 0 { failed = true }
    }
    func fraction(_ num: UInt32, _ denom: UInt32) {
        if spa_pod_builder_fraction(builder, num, denom) < 0 { failed = true }
    }

    /// The top-level pods built so far, or `podBuildFailed` when the buffer overflowed.
    func withPods<T>(_ what: String, _ body: (UnsafeMutablePointer<UnsafePointer<spa_pod>?>, UInt32) throws(PipeWireError) -> T) throws(PipeWireError) -> T {
        guard !failed, openFrames.isEmpty, Int(builder.pointee.state.offset) <= capacity else {
            throw .podBuildFailed(what)
        }
        let pods = UnsafeMutablePointer<UnsafePointer<spa_pod>?>.allocate(capacity: max(topLevelOffsets.count, 1))
        defer { pods.deallocate() }
        for (i, offset) in topLevelOffsets.enumerated() {
            pods[i] = UnsafePointer(data.advanced(by: Int(offset)).assumingMemoryBound(to: spa_pod.self))
        }
        return try body(pods, UInt32(topLevelOffsets.count))
    }

    /// The bytes of top-level pod `index` (for tests and for copying).
    func podBytes(_ index: Int) -> [UInt8] {
        let start = Int(topLevelOffsets[index])
        let end = index + 1 < topLevelOffsets.count ? Int(topLevelOffsets[index + 1]) : Int(builder.pointee.state.offset)
        return Array(UnsafeRawBufferPointer(start: data.advanced(by: start), count: min(end, capacity) - start))
    }

    var podCount: Int { topLevelOffsets.count }

    private func push() -> UnsafeMutablePointer<spa_pod_frame> {
        let frame = UnsafeMutablePointer<spa_pod_frame>.allocate(capacity: 1)
        frame.initialize(to: spa_pod_frame())
        openFrames.append(frame)
        return frame
    }

    private func pop(_ frame: UnsafeMutablePointer<spa_pod_frame>) {
        if spa_pod_builder_pop(builder, frame) == nil { failed = true }
        openFrames.removeLast()
        frame.deallocate()
    }
}
