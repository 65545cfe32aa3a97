import CPipeWire
import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import PortalTestSupport

/// Resident memory of this process's mappings, from `/proc/self/smaps`.
enum ResidentMappings {
    struct Mapping {
        var start: UInt
        var end: UInt
        var permissions: String
        var path: String
        var residentKiB: Int
    }

    static func all() -> [Mapping] {
        guard let file = fopen("/proc/self/smaps", "r") else { return [] }
        defer { fclose(file) }
        var mappings: [Mapping] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            var text = String(cString: line)
            if text.last == "\n" { text.removeLast() }
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5, !range.hasSuffix(":") {
                let bounds = range.split(separator: "-")
                guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16)
                else { continue }
                mappings.append(Mapping(start: start, end: end, permissions: String(fields[1]),
                                        path: fields.count > 5 ? fields[5...].joined(separator: " ") : "", residentKiB: 0))
            } else if fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]), !mappings.isEmpty {
                mappings[mappings.count - 1].residentKiB = kib
            }
        }
        return mappings
    }

    /// The mapping containing `address`.
    static func containing(_ address: UnsafeRawPointer) -> Mapping? {
        let a = UInt(bitPattern: address)
        return all().first { $0.start <= a && a < $0.end }
    }

    /// A consumer's read-only mappings of producers' memfd buffers (`VideoProducerStream` names them
    /// `pwrecord-frame`; producers map them read-write) of exactly `length` bytes.
    static func consumerBuffers(length: Int) -> [Mapping] {
        all().filter { $0.permissions == "r--s" && $0.path.contains("memfd:pwrecord-frame") && Int($0.end - $0.start) == length }
    }
}

@Suite("Buffer mapping residency")
struct BufferMappingResidencyTests {
    @Test("a shared mapping's dropped pages leave this process's RSS and read back the same bytes")
    func droppedPagesReadBack() throws {
        let size = 64 * 4096
        let fd = cpw_memfd_create("pwrecord-test-mapping", CPW_MFD_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, off_t(size)) == 0)
        let writer = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
        defer { munmap(writer, size) }
        for i in 0..<size { writer.storeBytes(of: UInt8(truncatingIfNeeded: i &* 7), toByteOffset: i, as: UInt8.self) }

        let mapping = try #require(BufferLender.SharedMapping(fd: fd, offset: 4096, size: size - 4096))
        func sum() -> Int { (0..<mapping.size).reduce(0) { $0 &+ Int(mapping.data.load(fromByteOffset: $1, as: UInt8.self)) } }
        let expected = (4096..<size).reduce(0) { $0 &+ Int(UInt8(truncatingIfNeeded: $1 &* 7)) }
        #expect(sum() == expected)
        let read = try #require(ResidentMappings.containing(mapping.data))
        #expect(read.residentKiB >= (size - 4096) / 1024, "all read pages are resident: \(read.residentKiB) kB")

        mapping.dropPages()
        let dropped = try #require(ResidentMappings.containing(mapping.data), "the mapping itself stays")
        #expect(dropped.residentKiB == 0)
        #expect(sum() == expected, "the memfd kept the bytes")
        #expect((ResidentMappings.containing(mapping.data)?.residentKiB ?? 0) > 0)
    }
}

/// `VideoCaptureOptions.bufferMapping` on a real stream: frames borrowed from memfd buffers are right either
/// way, and with `.whileLent` only the buffer a frame holds is resident in the consumer.
@Suite("Buffer mapping on PipeWire", .enabled(if: TestDesktop.isAvailable), .serialized)
struct BufferMappingTests {
    /// An odd size, so no other test's buffers have the same mapping length.
    static let format = VideoFormat(pixelFormat: .bgrx, width: 344, height: 216, frameRate: FrameRate(60))
    /// For 40 frames (under a second at 60 fps alone): once in a full local run only 20 had come in 5 s, the
    /// machine's two cores shared with the encoder tests.
    static let frameWait: Duration = .seconds(15)
    static var mappingLength: Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (format.minimumStride * format.height + page - 1) / page * page
    }

    /// - Parameter holding: frames the handler keeps (the last ones), so a new frame often arrives while the
    ///   one that borrowed a buffer is still held, and is copied.
    func makeLoop(_ mapping: VideoCaptureOptions.BufferMapping, name: String, holding: Int = 0) async throws -> VideoLoop {
        var producerOptions = VideoProducerOptions(format: Self.format, nodeName: name)
        producerOptions.bufferCount = 4
        var options = VideoCaptureOptions()
        options.cursorMetadata = false
        options.bufferMapping = mapping
        let held = HeldFrames(count: holding)
        return try await VideoLoop.start(coreName: "pwrecord-test-mapping", producer: producerOptions, consumer: options,
                                         alsoHandle: { held.keep($0) })
    }

    /// The consumer's buffer mappings, read between two cycles (loop lock held), so no frame is half made.
    func consumerBuffers(_ loop: VideoLoop) -> [ResidentMappings.Mapping] {
        loop.core.withLock { ResidentMappings.consumerBuffers(length: Self.mappingLength) }
    }

    @Test("with whileLent, borrowed frames are right and only the buffer the last frame holds is resident")
    func whileLentKeepsOnlyLentBuffersResident() async throws {
        let loop = try await makeLoop(.whileLent, name: "test-mapping-while-lent")
        let got = await loop.collector.wait(timeout: Self.frameWait) { $0.count >= 40 }
        let stats = loop.consumer.statistics
        #expect(got, "only \(loop.collector.summaries.count) frames; stats \(stats)")
        #expect(stats.framesBorrowed > 0, "frames were borrowed, not copied: \(stats)")
        let frames = loop.collector.summaries
        #expect(frames.allSatisfy { $0.colourMismatch == nil && $0.format == Self.format })
        let counters = frames.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "counters \(counters)")

        let buffers = consumerBuffers(loop)
        #expect(buffers.count >= 3, "each memfd buffer stays mapped: \(buffers.count)")
        let resident = buffers.filter { $0.residentKiB > 0 }
        #expect(resident.count <= 1, "the stream's last frame holds one buffer; resident: \(resident.map(\.residentKiB)) kB")
        loop.stop()
        #expect(ResidentMappings.consumerBuffers(length: Self.mappingLength).allSatisfy { $0.residentKiB == 0 },
                "nothing is resident once the stream is gone")
    }

    @Test("with persistent mapping every buffer read stays resident (the control for the test above)")
    func persistentKeepsEveryBufferResident() async throws {
        let loop = try await makeLoop(.persistent, name: "test-mapping-persistent")
        defer { loop.stop() }
        let got = await loop.collector.wait(timeout: Self.frameWait) { $0.count >= 40 }
        #expect(got, "only \(loop.collector.summaries.count) frames; stats \(loop.consumer.statistics)")
        #expect(loop.collector.summaries.allSatisfy { $0.colourMismatch == nil })
        let buffers = consumerBuffers(loop)
        let resident = buffers.filter { $0.residentKiB > 0 }
        #expect(buffers.count >= 3 && resident.count == buffers.count,
                "\(resident.count) of \(buffers.count) buffers resident")
    }

    @Test("with whileLent, frames copied while a borrowed one is held are right, and the buffer copied from is dropped")
    func whileLentCopiesFromDroppedBuffers() async throws {
        let loop = try await makeLoop(.whileLent, name: "test-mapping-copies", holding: 3)
        defer { loop.stop() }
        let got = await loop.collector.wait(timeout: Self.frameWait) { $0.count >= 40 }
        let stats = loop.consumer.statistics
        #expect(got, "only \(loop.collector.summaries.count) frames; stats \(stats)")
        #expect(stats.framesBorrowed > 0 && stats.framesBorrowed < stats.framesDelivered, "borrowed and copied: \(stats)")
        #expect(loop.collector.summaries.allSatisfy { $0.colourMismatch == nil })
        let resident = consumerBuffers(loop).filter { $0.residentKiB > 0 }
        #expect(resident.count <= 1, "only the held borrowed buffer: \(resident.map(\.residentKiB)) kB")
    }
}

/// Keeps the last `count` frames a handler saw.
final class HeldFrames: Sendable {
    private let count: Int
    private let frames = Mutex<[VideoFrame]>([])

    init(count: Int) { self.count = count }

    func keep(_ frame: VideoFrame) {
        guard count > 0 else { return }
        frames.withLock { f in
            f.append(frame)
            if f.count > count { f.removeFirst() }
        }
    }
}
