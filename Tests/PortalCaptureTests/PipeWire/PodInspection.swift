import CPipeWire
@testable import PortalCapture

/// Reads a property of a built object pod back with libspa's own iterators (`spa_pod_find_prop`,
/// `spa_pod_get_values`): the choice type and the raw 32-bit words of each value.
func propertyValues(_ pod: UnsafePointer<spa_pod>, key: UInt32) -> (choice: UInt32, values: [[UInt32]])? {
    guard let prop = spa_pod_find_prop(pod, nil, key) else { return nil }
    var count: UInt32 = 0, choice: UInt32 = 0
    let value = UnsafeRawPointer(prop).advanced(by: MemoryLayout<UInt32>.size * 2)   // key, flags
        .assumingMemoryBound(to: spa_pod.self)
    guard let child = spa_pod_get_values(value, &count, &choice) else { return nil }
    let size = Int(child.pointee.size)
    // A choice's values follow its child header; a plain value's body follows its own header.
    let body = UnsafeRawPointer(child).advanced(by: MemoryLayout<spa_pod>.size)
    var result: [[UInt32]] = []
    for i in 0..<Int(count) {
        let start = body.advanced(by: i * size)
        result.append((0..<(size / 4)).map { start.load(fromByteOffset: $0 * 4, as: UInt32.self) })
    }
    return (choice, result)
}

/// Builds pods with `build` and hands the first one to `body`.
@discardableResult
func withFirstPod<T>(_ build: (SPAPodBuilder) -> Void, _ body: (UnsafePointer<spa_pod>) throws -> T) throws -> T {
    let b = SPAPodBuilder()
    build(b)
    return try b.withPods("test") { pods, count throws(PipeWireError) in
        guard count > 0, let first = pods[0] else { throw PipeWireError.podBuildFailed("none built") }
        do { return try body(first) } catch let e as PipeWireError { throw e } catch { throw .podBuildFailed("\(error)") }
    }
}

/// Hands `body` a copy of `pod` fixated the way a link fixates a format before setting it (`spa_pod_fixate`:
/// every choice not flagged `DONT_FIXATE` becomes its default), with `spa_pod_fixate`'s result.
func withFixatedCopy<T>(of pod: UnsafePointer<spa_pod>,
                        _ body: (UnsafeMutablePointer<spa_pod>, Int32) throws -> T) rethrows -> T {
    let size = Int(pod.pointee.size) + MemoryLayout<spa_pod>.size
    let copy = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
    defer { copy.deallocate() }
    copy.copyMemory(from: pod, byteCount: size)
    let fixated = copy.assumingMemoryBound(to: spa_pod.self)
    return try body(fixated, spa_pod_fixate(fixated))
}
