import CPipeWire
import Testing
@testable import PortalCapture

@Suite("What the data thread prefetches when it wakes")
struct CacheWarmerTests {
    /// Twenty stored words: an allocation of several cache lines.
    final class Wide {
        var words = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
    }

    @Test("an object is listed whole, every cache line of its allocation, and nothing beside it")
    func objectListedWhole() {
        let warmer = CacheWarmer()
        let object = Wide()
        warmer.add(object: object)
        let start = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let size = cpw_allocation_size(start)
        #expect(size >= 16 + 20 * 8)
        let first = UInt(bitPattern: start) & ~63, end = UInt(bitPattern: start) + UInt(size)
        #expect(warmer.lineCount == Int((end - first + 63) / 64))
        #expect(warmer.lists(object: object))
        #expect(!warmer.lists(UnsafeRawPointer(bitPattern: first - 1)!))
        #expect(!warmer.lists(UnsafeRawPointer(bitPattern: (end + 63) & ~63)!))
    }

    @Test("an object from elsewhere is listed by its head only, without asking the allocator")
    func objectHeadListed() {
        let warmer = CacheWarmer()
        let object = Wide()
        warmer.add(head: object, byteCount: 64)
        let start = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        #expect(warmer.lists(UnsafeRawPointer(bitPattern: start)!))
        #expect(warmer.lineCount == ((start & 63) == 0 ? 1 : 2))
        #expect(!warmer.lists(UnsafeRawPointer(bitPattern: (start + 64 + 63) & ~63)!))
    }

    @Test("entries beyond the capacity are left out, and warming still works after the listed objects went")
    func capacityAndGoneObjects() {
        let warmer = CacheWarmer()
        var kept: [Wide] = []
        for _ in 0..<(CacheWarmer.capacity + 10) {
            let object = Wide()
            kept.append(object)
            warmer.add(object: object)
        }
        #expect(!warmer.lists(object: kept.last!))
        #expect(warmer.lists(object: kept[CacheWarmer.capacity - 1]))
        let lines = warmer.lineCount
        kept.removeAll()   // freed: their lines stay listed, and a prefetch of them is only a wasted fetch
        warmer.warm()
        #expect(warmer.lineCount == lines)
    }

    @Test("nothing listed, or an empty range, warms nothing and does not fail")
    func emptyWarmer() {
        let warmer = CacheWarmer()
        warmer.add(nil, byteCount: 64)
        warmer.add(UnsafeRawPointer(bitPattern: 4096), byteCount: 0)
        warmer.add(object: nil)
        warmer.warm()
        #expect(warmer.lineCount == 0)
    }
}
