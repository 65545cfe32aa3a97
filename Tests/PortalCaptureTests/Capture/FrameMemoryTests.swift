import Glibc
import Testing
@testable import PortalCapture

/// What keeps a recording's frame memory down (bench/recording-memory): frames a recording's processing does
/// not change are not copied again, and frame-sized storages are mappings of their own.
@Suite("Frame memory")
struct FrameMemoryTests {
    static let base = Pixel(10, 20, 30, 90)

    @Test("honouring stream crops, a frame without one passes through uncopied")
    func noStreamCropPassesThrough() throws {
        let pool = FramePool(maximumCount: 2)
        var processor = FrameProcessor(options: FrameProcessingOptions().cropping(to: nil, honouringStreamCrop: true), pool: pool)
        let input = Frames.solid(.bgrx, width: 6, height: 4, Self.base, cursor: CursorState(x: 2, y: 1, bitmap: nil))
        let output = try processor.process(input)
        #expect(output.storage === input.storage)
        #expect(output.format == input.format && output.crop == nil)
        #expect(output.cursor?.x == 2 && output.cursor?.y == 1, "the cursor is kept for sinks that draw it")
        #expect(pool.statistics.allocations == 0)
    }

    @Test("a stream crop covering the whole frame passes through too, and is consumed")
    func wholeFrameStreamCropPassesThrough() throws {
        var processor = FrameProcessor(options: FrameProcessingOptions().cropping(to: nil, honouringStreamCrop: true))
        var input = Frames.solid(.rgba, width: 6, height: 4, Self.base)
        input.crop = PixelRect(x: 0, y: 0, width: 6, height: 4)
        let output = try processor.process(input)
        #expect(output.storage === input.storage)
        #expect(output.crop == nil)
    }

    @Test("a stream crop smaller than the frame, a mask or a cursor to draw still gives a processed copy")
    func changesStillCopy() throws {
        var cropped = Frames.solid(.bgrx, width: 6, height: 4, Self.base)
        cropped.crop = PixelRect(x: 1, y: 1, width: 4, height: 2)
        var honouring = FrameProcessor(options: FrameProcessingOptions().cropping(to: nil, honouringStreamCrop: true))
        let output = try honouring.process(cropped)
        #expect(output.storage !== cropped.storage)
        #expect(output.format.width == 4 && output.format.height == 2)

        let plain = Frames.solid(.bgrx, width: 6, height: 4, Self.base)
        var masking = FrameProcessor(options: FrameProcessingOptions().masking([PixelRect(x: 0, y: 0, width: 1, height: 1)])
            .cropping(to: nil, honouringStreamCrop: true))
        let masked = try masking.process(plain)
        #expect(masked.storage !== plain.storage)
        #expect(Frames.read(plain, x: 0, y: 0) == Self.base, "the input frame is never written")
        var compositing = FrameProcessor(options: FrameProcessingOptions().compositingCursor().cropping(to: nil, honouringStreamCrop: true))
        #expect(try compositing.process(plain).storage !== plain.storage)
    }

    @Test("a frame-sized storage is a page-aligned mapping of its own, writable to its last byte; small ones are 64-byte aligned")
    func largeStoragesAreMappings() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let large = FrameStorage(capacity: 1920 * 1080 * 4)
        #expect(Int(bitPattern: large.bytes) % page == 0)
        large.bytes.storeBytes(of: 0xAB, toByteOffset: large.capacity - 1, as: UInt8.self)
        large.bytes.storeBytes(of: 0xCD, toByteOffset: 0, as: UInt8.self)
        #expect(large.buffer[large.capacity - 1] == 0xAB && large.buffer[0] == 0xCD)
        let small = FrameStorage(capacity: 64 * 64 * 4)
        #expect(Int(bitPattern: small.bytes) % 64 == 0)
        #expect(FrameStorage.mappingThreshold == 1 << 20)
    }
}

@Suite("Frame pool prefill")
struct FramePoolPrefillTests {
    @Test("a prefilling pool makes all its storages at the first acquire and reuses them; beyond them it overflows")
    func prefillsAtFirstAcquire() {
        let pool = FramePool(maximumCount: 3, prefills: true)
        var held = [pool.acquire(capacity: 4096)]
        #expect(pool.statistics.allocations == 3 && pool.statistics.kept == 3)
        for _ in 0..<10 {
            held.append(pool.acquire(capacity: 4096))
            held.removeFirst()
        }
        #expect(pool.statistics.allocations == 3, "steady use needs no new storage")
        held += [pool.acquire(capacity: 4096), pool.acquire(capacity: 4096), pool.acquire(capacity: 4096)]
        #expect(pool.statistics.overflows == 1 && pool.statistics.kept == 3)
        held.removeAll()
        _ = pool.acquire(capacity: 8192)
        #expect(pool.statistics.kept == 3 && pool.statistics.capacity == 8192, "a resize makes all of them again")
        #expect(pool.statistics.allocations == 7)
    }

    @Test("a pool that does not prefill makes storages only as they are needed")
    func noPrefill() {
        let pool = FramePool(maximumCount: 3)
        _ = pool.acquire(capacity: 4096)
        #expect(pool.statistics.allocations == 1 && pool.statistics.kept == 1)
    }
}
