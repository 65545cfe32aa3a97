import Testing
@testable import PortalCapture

@Suite("Row fingerprints")
struct RowSignaturesTests {
    /// A row of pseudo-random pixels, `pixels` wide.
    private func randomRow(_ pixels: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<(pixels * 4)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    private func hash(_ row: [UInt8], pixels: Int, mask: UInt64 = 0x00FF_FFFF_00FF_FFFF) -> (hash: UInt64, blank: Bool) {
        RowSignatures.keys.withUnsafeBufferPointer { keys in
            row.withUnsafeBytes { RowSignatures.hashRow($0.baseAddress!, pixels: pixels, mask: mask, keys: keys.baseAddress!) }
        }
    }

    @Test("changing any colour bit of a row changes its hash; padding bytes do not count", arguments: [1, 7, 63, 64, 65, 200])
    func everyColourBitCounts(pixels: Int) {
        let row = randomRow(pixels, seed: UInt64(pixels))
        let original = hash(row, pixels: pixels).hash
        var hashes: Set<UInt64> = [original]
        for byte in row.indices {
            for bit in 0..<8 {
                var changed = row
                changed[byte] ^= 1 << bit
                let h = hash(changed, pixels: pixels).hash
                if byte % 4 == 3 {
                    #expect(h == original, "padding byte \(byte) changed the hash")
                } else {
                    hashes.insert(h)
                }
            }
        }
        #expect(hashes.count == 1 + pixels * 3 * 8)
        // With alpha, the fourth byte counts too.
        var alpha = row
        alpha[3] ^= 1
        #expect(hash(alpha, pixels: pixels, mask: ~0).hash != hash(row, pixels: pixels, mask: ~0).hash)
    }

    @Test("swapping two parts of a row changes its hash")
    func orderCounts() {
        let row = randomRow(1920, seed: 5)
        let original = hash(row, pixels: 1920).hash
        for (a, b) in [(0, 16), (0, 256), (100, 1900), (32, 288)] {
            var swapped = row
            for i in 0..<16 { swapped.swapAt(a * 4 + i, b * 4 + i) }
            #expect(hash(swapped, pixels: 1920).hash != original, "swapping pixels \(a) and \(b)")
        }
    }

    @Test("a row is blank exactly when all its pixels have one colour")
    func blankRows() {
        let white = [UInt8](repeating: 255, count: 1920 * 4)
        #expect(hash(white, pixels: 1920).blank)
        var padded = white
        for i in stride(from: 3, to: padded.count, by: 4) { padded[i] = UInt8(i % 256) }
        #expect(hash(padded, pixels: 1920).blank, "padding bytes differ but the colours do not")
        for spot in [0, 1, 1917, 1919] {
            var dotted = white
            dotted[spot * 4 + 1] = 0
            #expect(!hash(dotted, pixels: 1920).blank, "a dot at \(spot)")
            #expect(hash(dotted, pixels: 1919).blank == (spot == 1919), "the first 1919 pixels, a dot at \(spot)")
        }
        #expect(hash(Array(white.prefix(4)), pixels: 1).blank)
    }
}
