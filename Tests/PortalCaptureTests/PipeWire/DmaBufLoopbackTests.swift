import Testing
@testable import PortalCapture
import PortalTestSupport

/// DMA-BUF negotiation between our consumer and a producer offering modifiers. No GPU here: the producer's
/// "DMA-BUFs" are memfds typed `SPA_DATA_DmaBuf` (a memfd maps like a linear DMA-BUF). These tests prove
/// the negotiation (modifier pods, fixation, refusal and fallback) and the consumer's mmap path for a buffer
/// typed DMA-BUF; they do not prove a device buffer's layout or its sync ioctl.
@Suite("PipeWire DMA-BUF loopback", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct DmaBufLoopbackTests {
    func makeLoop(modifiers: [DRMFormatModifier], name: String, zeroCopy: Bool = true,
                  consumerDmaBuf: Bool = true,
                  producer: (inout VideoProducerOptions) -> Void = { _ in }) async throws -> VideoLoop {
        let format = VideoFormat(pixelFormat: .bgrx, width: 320, height: 240, frameRate: FrameRate(60))
        var producerOptions = VideoProducerOptions(format: format, nodeName: name)
        producerOptions.dmaBufModifiers = modifiers
        producer(&producerOptions)
        var options = VideoCaptureOptions()
        options.zeroCopy = zeroCopy
        options.linearDmaBuf = consumerDmaBuf
        return try await VideoLoop.start(coreName: "pwrecord-test-dmabuf", producer: producerOptions, consumer: options)
    }

    func expectRightContent(_ loop: VideoLoop, count: Int = 20) async {
        let got = await loop.collector.wait { $0.count >= count }
        #expect(got, "only \(loop.collector.summaries.count) frames; stats \(loop.consumer.statistics)")
        let frames = loop.collector.summaries
        #expect(frames.allSatisfy { $0.colourMismatch == nil && $0.stride == 320 * 4 })
        let counters = frames.map(\.counter)
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "counters \(counters)")
    }

    @Test("a producer offering a linear DMA-BUF: frames arrive by mmap, counted as DMA-BUF with modifier 0",
          arguments: [true, false])
    func linearDmaBufIsRead(zeroCopy: Bool) async throws {
        // The producer lists a tiled modifier first: the link's intersection leaves only linear (and the
        // implicit one, which the producer takes only when nothing explicit is left).
        let loop = try await makeLoop(modifiers: [.intelXTiled, .linear, .invalid],
                                      name: "test-dmabuf-linear-\(zeroCopy)", zeroCopy: zeroCopy)
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.modifier == .linear)
        #expect(loop.producer.negotiatedModifier == .linear)
        #expect(stats.framesFromDmaBuf > 0 && stats.framesFromDmaBuf == stats.framesDelivered, "stats \(stats)")
        #expect(stats.refusedModifiers.isEmpty)
        if zeroCopy {
            #expect(stats.framesBorrowed > 0, "DMA-BUF frames are lent like memfd ones: \(stats)")
        } else {
            #expect(stats.framesBorrowed == 0)
        }
        let formatEvents = loop.collector.receivedEvents.filter { if case .formatChanged = $0 { true } else { false } }
        #expect(formatEvents.count == 1, "the format is reported once though set twice: \(loop.collector.receivedEvents)")
    }

    @Test("a producer whose modifiers meet ours only in the implicit one: refused, reported, shared memory used")
    func nonLinearModifierIsRefused() async throws {
        let loop = try await makeLoop(modifiers: [.intelXTiled, .invalid], name: "test-dmabuf-refused")
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.refusedModifiers == [.invalid], "stats \(stats)")
        #expect(loop.collector.receivedEvents.contains(.dmaBufRefused(.invalid)))
        #expect(stats.modifier == nil)
        #expect(stats.framesFromDmaBuf == 0)
        #expect(loop.producer.negotiatedModifier == nil, "the producer fell back to memfd buffers")
    }

    @Test("a producer offering only a tiled modifier never matches our DMA-BUF formats: shared memory, nothing refused")
    func tiledOnlyFallsBackInNegotiation() async throws {
        let loop = try await makeLoop(modifiers: [.intelXTiled], name: "test-dmabuf-tiled")
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.refusedModifiers.isEmpty && stats.modifier == nil && stats.framesFromDmaBuf == 0, "stats \(stats)")
        #expect(loop.producer.negotiatedModifier == nil)
    }

    @Test("a consumer without DMA-BUF gets shared memory from a producer that offers linear")
    func consumerWithoutDmaBuf() async throws {
        let loop = try await makeLoop(modifiers: [.linear], name: "test-dmabuf-off", consumerDmaBuf: false)
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.modifier == nil && stats.framesFromDmaBuf == 0, "stats \(stats)")
        #expect(loop.producer.negotiatedModifier == nil)
    }

    @Test("a linear DMA-BUF that announces no size (maxsize 0, chunk size 9, as xdg-desktop-portal-wlr) is read with the fd's size",
          arguments: [true, false])
    func sizelessDmaBufIsRead(zeroCopy: Bool) async throws {
        let loop = try await makeLoop(modifiers: [.linear], name: "test-dmabuf-sizeless-\(zeroCopy)", zeroCopy: zeroCopy) {
            $0.dmaBufAnnouncesSize = false
        }
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.modifier == .linear && stats.refusedModifiers.isEmpty, "stats \(stats)")
        // Before the fix every frame was skipped as invalid; one or two may be while the format settles.
        #expect(stats.framesFromDmaBuf > 0 && stats.skippedInvalid <= 2, "stats \(stats)")
    }

    @Test("a linear DMA-BUF that cannot be mapped is refused, reported, and the stream goes on in shared memory",
          arguments: [true, false])
    func unmappableDmaBufIsRefused(zeroCopy: Bool) async throws {
        let loop = try await makeLoop(modifiers: [.linear], name: "test-dmabuf-unmappable-\(zeroCopy)", zeroCopy: zeroCopy) {
            $0.dmaBufMappable = false
        }
        defer { loop.stop() }
        await expectRightContent(loop)
        let stats = loop.consumer.statistics
        #expect(stats.refusedModifiers == [.linear], "stats \(stats)")
        #expect(loop.collector.receivedEvents.contains(.dmaBufRefused(.linear)))
        #expect(stats.modifier == nil && stats.framesFromDmaBuf == 0, "stats \(stats)")
        #expect(loop.producer.negotiatedModifier == nil, "the producer fell back to memfd buffers")
    }

    @Test("a memfd buffer whose maxsize and chunk offset point past its end is never read there: its frames are skipped as invalid, no SIGBUS",
          arguments: [true, false], [4096, 320 * 240 * 4])
    func overstatedMemfdIsNotReadPastItsEnd(zeroCopy: Bool, overstated: Int) async throws {
        // 320x240 BGRx fills 75 pages exactly; the chunk claims the picture starts `overstated` bytes in, inside
        // maxsize. At the memfd's very end the offset must not wrap back to 0 (modulo the readable size).
        let loop = try await makeLoop(modifiers: [], name: "test-memfd-overstated-\(zeroCopy)-\(overstated)", zeroCopy: zeroCopy) {
            $0.overstatedBytes = overstated
        }
        defer { loop.stop() }
        let skipped = await eventually(timeout: .seconds(5)) { loop.consumer.statistics.skippedInvalid >= 10 }
        let stats = loop.consumer.statistics
        #expect(skipped, "stats \(stats)")
        #expect(stats.framesDelivered == 0 && loop.collector.summaries.isEmpty, "stats \(stats)")
    }
}
