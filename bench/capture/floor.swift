// The design floor of issue 4's capture path in plain Swift: floor.c's `handoff` consumer written in Swift
// (bench/capture/run builds it with `swiftc -O` against the CPipeWire module and measures it beside the C one as
// `swift-floor-handoff`). `process` on PipeWire's data thread (PW_STREAM_FLAG_RT_PROCESS) queues the buffers
// the delivery thread released (bits of an atomic mask), takes the newest buffer into a one-slot queue (an
// atomic exchange) and posts a semaphore; the delivery thread waits on it, reads one byte of the frame (the null
// sink) and marks the buffer released. No frame objects, locks, sink protocol or pipeline: what the language
// costs on this path, apart from what our code does on it (bench/README.md, capture).
//
//   swift-floor NODE   stops on SIGINT or SIGTERM and prints the frames it took and delivered.
import CPipeWire
import Glibc
import Synchronization

final class Consumer: @unchecked Sendable {
    var loop: OpaquePointer? = nil
    var stream: OpaquePointer? = nil
    var listener = spa_hook()
    let waiting = Atomic<UInt>(0)
    let released = Atomic<UInt64>(0)
    var wakeup = sem_t()
    var buffers = [UnsafeMutablePointer<pw_buffer>?](repeating: nil, count: 64)
    var bufferCount = 0
    var taken = 0
    var delivered = 0
    let running = Atomic<Bool>(true)
}

nonisolated(unsafe) var events = pw_stream_events()
events.version = UInt32(PW_VERSION_STREAM_EVENTS)
events.add_buffer = { data, b in
    let c = Unmanaged<Consumer>.fromOpaque(data!).takeUnretainedValue()
    guard let b, c.bufferCount < 64 else { return }
    c.buffers[c.bufferCount] = b
    c.bufferCount += 1
    b.pointee.user_data = UnsafeMutableRawPointer(bitPattern: c.bufferCount)
}
events.remove_buffer = { data, b in
    let c = Unmanaged<Consumer>.fromOpaque(data!).takeUnretainedValue()
    guard let b, let tag = b.pointee.user_data else { return }
    c.buffers[Int(bitPattern: tag) - 1] = nil
    b.pointee.user_data = nil
}
events.process = { data in
    let c = Unmanaged<Consumer>.fromOpaque(data!).takeUnretainedValue()
    let stream = c.stream
    var done = c.released.exchange(0, ordering: .acquiring)
    while done != 0 {
        let i = done.trailingZeroBitCount
        done &= done - 1
        if let b = c.buffers[i] { pw_stream_queue_buffer(stream, b) }
    }
    var newest: UnsafeMutablePointer<pw_buffer>? = nil
    while let b = pw_stream_dequeue_buffer(stream) {
        if let n = newest { pw_stream_queue_buffer(stream, n) }
        newest = b
    }
    guard let newest else { return }
    c.taken += 1
    let dropped = c.waiting.exchange(UInt(bitPattern: newest), ordering: .acquiringAndReleasing)
    if dropped != 0 { pw_stream_queue_buffer(stream, UnsafeMutablePointer(bitPattern: dropped)) }
    sem_post(&c.wakeup)
}

guard CommandLine.arguments.count == 2, let node = UInt32(CommandLine.arguments[1]) else {
    fputs("usage: swift-floor NODE\n", stderr)
    exit(2)
}
pw_init(nil, nil)
let c = Consumer()
sem_init(&c.wakeup, 0, 0)
let cptr = Unmanaged.passUnretained(c).toOpaque()
var thread = pthread_t()
pthread_create(&thread, nil, { data in
    let c = Unmanaged<Consumer>.fromOpaque(data!).takeUnretainedValue()
    while c.running.load(ordering: .relaxed) {
        while sem_wait(&c.wakeup) != 0 && errno == EINTR {}
        let raw = c.waiting.exchange(0, ordering: .acquiringAndReleasing)
        guard let b = UnsafeMutablePointer<pw_buffer>(bitPattern: raw) else { continue }
        if let d = b.pointee.buffer.pointee.datas[0].data { _ = d.load(as: UInt8.self) }
        c.delivered += 1
        if let tag = b.pointee.user_data {
            c.released.bitwiseOr(1 << UInt64(Int(bitPattern: tag) - 1), ordering: .releasing)
        }
    }
    return nil
}, cptr)

c.loop = pw_thread_loop_new("sfloor", nil)
pw_thread_loop_lock(c.loop)
pw_thread_loop_start(c.loop)
let props = pw_properties_new_string("media.type=Video media.category=Capture media.role=Screen")
c.stream = pw_stream_new_simple(pw_thread_loop_get_loop(c.loop), "pwrecord-bench-swift-floor", props, &events, cptr)
// EnumFormat: video/raw, BGRx|RGBx|BGRA|RGBA, size and rate ranges.
let podData = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 8)
var builder = spa_pod_builder()
spa_pod_builder_init(&builder, podData, 1024)
var f0 = spa_pod_frame(), f1 = spa_pod_frame()
spa_pod_builder_push_object(&builder, &f0, UInt32(SPA_TYPE_OBJECT_Format), SPA_PARAM_EnumFormat.rawValue)
spa_pod_builder_prop(&builder, SPA_FORMAT_mediaType.rawValue, 0); spa_pod_builder_id(&builder, SPA_MEDIA_TYPE_video.rawValue)
spa_pod_builder_prop(&builder, SPA_FORMAT_mediaSubtype.rawValue, 0); spa_pod_builder_id(&builder, SPA_MEDIA_SUBTYPE_raw.rawValue)
spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_format.rawValue, 0)
spa_pod_builder_push_choice(&builder, &f1, SPA_CHOICE_Enum.rawValue, 0)
for f in [SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_RGBx, SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBA] { spa_pod_builder_id(&builder, f.rawValue) }
spa_pod_builder_pop(&builder, &f1)
spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_size.rawValue, 0)
spa_pod_builder_push_choice(&builder, &f1, SPA_CHOICE_Range.rawValue, 0)
spa_pod_builder_rectangle(&builder, 1920, 1080); spa_pod_builder_rectangle(&builder, 1, 1); spa_pod_builder_rectangle(&builder, 8192, 8192)
spa_pod_builder_pop(&builder, &f1)
spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_framerate.rawValue, 0)
spa_pod_builder_push_choice(&builder, &f1, SPA_CHOICE_Range.rawValue, 0)
spa_pod_builder_fraction(&builder, 60, 1); spa_pod_builder_fraction(&builder, 0, 1); spa_pod_builder_fraction(&builder, 1000, 1)
spa_pod_builder_pop(&builder, &f1)
let pod = spa_pod_builder_pop(&builder, &f0)
var params: [UnsafePointer<spa_pod>?] = [UnsafePointer(pod!.assumingMemoryBound(to: spa_pod.self))]
let rc = pw_stream_connect(c.stream, SPA_DIRECTION_INPUT, node,
    pw_stream_flags(PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue | PW_STREAM_FLAG_RT_PROCESS.rawValue), &params, 1)
pw_thread_loop_unlock(c.loop)
if rc < 0 { fputs("swift-floor: pw_stream_connect: \(String(cString: strerror(-rc)))\n", stderr); exit(1) }
nonisolated(unsafe) var stop: sig_atomic_t = 0
signal(SIGINT) { _ in stop = 1 }
signal(SIGTERM) { _ in stop = 1 }
while stop == 0 { pause() }
c.running.store(false, ordering: .relaxed)
sem_post(&c.wakeup)
pthread_join(thread, nil)
pw_thread_loop_lock(c.loop)
pw_stream_destroy(c.stream)
pw_thread_loop_unlock(c.loop)
pw_thread_loop_stop(c.loop)
print("swift floor handoff: \(c.taken) frames taken, \(c.delivered) delivered")
