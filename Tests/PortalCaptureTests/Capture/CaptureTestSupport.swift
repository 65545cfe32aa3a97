import Dispatch
import Foundation
import Synchronization
@testable import PortalCapture

/// Red, green, blue and the fourth byte of a pixel, whatever the layout.
struct Pixel: Equatable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8, fourth: UInt8
    init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ fourth: UInt8) {
        self.r = r; self.g = g; self.b = b; self.fourth = fourth
    }
    var description: String { "(\(r),\(g),\(b),\(fourth))" }
}

enum Frames {
    /// A `width x height` frame in `format` whose pixel (x, y) is `paint(x, y)`, rows `padding` bytes longer
    /// than needed.
    static func make(_ format: PixelFormat, width: Int, height: Int, padding: Int = 0, sequence: UInt64 = 0,
                     cursor: CursorState? = nil, crop: PixelRect? = nil,
                     paint: (Int, Int) -> Pixel) -> VideoFrame {
        let stride = width * 4 + padding
        let storage = FrameStorage(capacity: stride * height)
        storage.bytes.initializeMemory(as: UInt8.self, repeating: 0xEE, count: storage.capacity)
        let frame = VideoFrame(format: VideoFormat(pixelFormat: format, width: width, height: height),
                               stride: stride, timestamp: sequence * 1000, sequence: sequence,
                               crop: crop, cursor: cursor, storage: storage)
        for y in 0 ..< height {
            for x in 0 ..< width { write(paint(x, y), to: frame, x: x, y: y) }
        }
        return frame
    }

    static func solid(_ format: PixelFormat, width: Int, height: Int, _ pixel: Pixel,
                      cursor: CursorState? = nil) -> VideoFrame {
        make(format, width: width, height: height, cursor: cursor) { _, _ in pixel }
    }

    static func write(_ pixel: Pixel, to frame: VideoFrame, x: Int, y: Int) {
        let p = frame.storage.bytes.advanced(by: y * frame.stride + x * 4).assumingMemoryBound(to: UInt8.self)
        let f = frame.format.pixelFormat
        p[f.redOffset] = pixel.r; p[f.greenOffset] = pixel.g; p[f.blueOffset] = pixel.b; p[3] = pixel.fourth
    }

    static func read(_ frame: VideoFrame, x: Int, y: Int) -> Pixel {
        let p = frame.storage.bytes.advanced(by: y * frame.stride + x * 4).assumingMemoryBound(to: UInt8.self)
        let f = frame.format.pixelFormat
        return Pixel(p[f.redOffset], p[f.greenOffset], p[f.blueOffset], p[3])
    }

    /// Every pixel of `frame` that differs from `expected(x, y)`, as readable lines.
    static func mismatches(_ frame: VideoFrame, _ expected: (Int, Int) -> Pixel) -> [String] {
        var lines: [String] = []
        for y in 0 ..< frame.format.height {
            for x in 0 ..< frame.format.width {
                let got = read(frame, x: x, y: y), want = expected(x, y)
                if got != want { lines.append("(\(x),\(y)): got \(got), want \(want)") }
            }
        }
        return lines
    }

    /// A small video frame carrying `sequence`, for delivery tests.
    static func tiny(_ sequence: UInt64, width: Int = 2, height: Int = 2) -> CaptureSample {
        .video(make(.bgrx, width: width, height: height, sequence: sequence) { _, _ in Pixel(0, 0, 0, 255) })
    }

    static func audio(_ sequence: UInt64, frames: Int = 480) -> CaptureSample {
        let format = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)
        return .audio(AudioBuffer(format: format, timestamp: sequence * 10_000_000, sequence: sequence,
                                  bytes: [UInt8](repeating: 0, count: frames * format.bytesPerFrame)))
    }
}

extension CaptureSample {
    /// "v3" or "a7": kind and sequence, for comparing delivered orders.
    var tag: String {
        switch self {
        case .video(let frame): "v\(frame.sequence)"
        case .audio(let buffer): "a\(buffer.sequence)"
        }
    }
}

/// A sink that records every call, and can be made slow, blocked or failing.
final class RecordingSink: CaptureSink {
    enum Call: Equatable, CustomStringConvertible {
        case open
        case consume(String)
        case formatChanged(width: Int, height: Int)
        case ended(at: UInt64)
        case close

        var description: String {
            switch self {
            case .open: "open"
            case .consume(let tag): tag
            case .formatChanged(let w, let h): "format \(w)x\(h)"
            case .ended(let time): "ended at \(time)"
            case .close: "close"
            }
        }
    }

    struct Behaviour: Sendable {
        var delayPerSample: Duration = .zero
        /// Fail the n-th `consume` (1-based).
        var failOnConsume: Int?
        var failOnOpen = false
        var failOnClose = false
        /// Signalled when `consume` starts; `consume` then waits for `gate` to open (when set).
        var entered: DispatchSemaphore?
        var gate: Gate?
        /// Run on a thread of its own (`CaptureSink.isolation`).
        var isolation: SinkIsolation?
    }

    let id: String
    let behaviour: Behaviour
    private let log = Mutex<[Call]>([])
    private let openContext = Mutex<SinkContext?>(nil)
    private let lastFrame = Mutex<VideoFrame?>(nil)

    init(id: String = "recording", _ behaviour: Behaviour = Behaviour()) {
        self.id = id
        self.behaviour = behaviour
    }

    var isolation: SinkIsolation? { behaviour.isolation }
    var calls: [Call] { log.withLock { $0 } }
    /// What `open` was given.
    var context: SinkContext? { openContext.withLock { $0 } }
    /// The last video frame consumed.
    var frame: VideoFrame? { lastFrame.withLock { $0 } }
    var consumed: [String] {
        calls.compactMap { if case .consume(let tag) = $0 { tag } else { nil } }
    }

    func open(_ context: SinkContext) throws(SinkError) {
        log.withLock { $0.append(.open) }
        openContext.withLock { $0 = context }
        if behaviour.failOnOpen { throw .failed(sink: id, reason: "open refused by test") }
    }

    func consume(_ sample: CaptureSample) throws(SinkError) {
        let count = log.withLock { log in
            log.append(.consume(sample.tag))
            return log.filter { if case .consume = $0 { true } else { false } }.count
        }
        if case .video(let frame) = sample { lastFrame.withLock { $0 = frame } }
        behaviour.entered?.signal()
        behaviour.gate?.wait()
        if behaviour.delayPerSample > .zero { Thread.sleep(forTimeInterval: behaviour.delayPerSample.seconds) }
        if count == behaviour.failOnConsume { throw .insufficientStorage(path: "/test/\(id)") }
    }

    func formatChanged(_ format: VideoFormat) throws(SinkError) {
        log.withLock { $0.append(.formatChanged(width: format.width, height: format.height)) }
    }

    func ended(at time: UInt64) throws(SinkError) {
        log.withLock { $0.append(.ended(at: time)) }
    }

    func close() throws(SinkError) -> SinkResult {
        log.withLock { $0.append(.close) }
        if behaviour.failOnClose { throw .failed(sink: id, reason: "close refused by test") }
        return SinkResult(videoFrames: consumed.filter { $0.hasPrefix("v") }.count)
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

extension SinkContext {
    static func test(video: VideoFormat? = VideoFormat(pixelFormat: .bgrx, width: 2, height: 2)) -> SinkContext {
        SinkContext(video: video, audio: AudioFormat(sampleFormat: .s16), output: nil, startTime: 0)
    }
}

final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Closed until `open()`; `wait()` blocks while closed.
final class Gate: Sendable {
    private let group = DispatchGroup()
    init() { group.enter() }
    func open() { group.leave() }
    func wait() { group.wait() }
}

/// Collects values from any thread.
final class Collector<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
