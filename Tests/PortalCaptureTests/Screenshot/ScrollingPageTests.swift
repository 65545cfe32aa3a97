import Testing
import PortalCapture
@testable import PortalTestSupport

@Suite("Scrolling page")
struct ScrollingPageTests {
    @Test("a viewport shows the header, the body at its offset and the footer, in every pixel format",
          arguments: PixelFormat.allCases)
    func viewportLayout(format: PixelFormat) throws {
        let page = try ScrollingPage.generated(width: 64, bodyHeight: 500, viewportHeight: 100, headerHeight: 20,
                                               footerHeight: 16, seed: 3)
        for offset in [0, 1, 137, page.maximumOffset] {
            let frame = page.frame(offset: offset, pixelFormat: format, stride: 64 * 4 + 8, padding: 9)
            for row in 0..<page.viewportHeight {
                let source = row < 20 ? row : row >= 84 ? 20 + 500 + row - 84 : 20 + offset + row - 20
                #expect(page.pageRow(forViewportRow: row, offset: offset) == source)
                let want = page.pageRow(source)
                for x in [0, 17, 63] {
                    let got = frame.rgb(x: x, y: row)
                    let i = want.startIndex + x * 4
                    #expect(got.r == want[i] && got.g == want[i + 1] && got.b == want[i + 2], "row \(row) x \(x) offset \(offset)")
                    #expect(frame.pixel(x: x, y: row).3 == (format.hasAlpha ? 255 : 9))
                }
            }
        }
    }

    @Test("text and image rows differ from every other row of the page; blank and rule rows repeat")
    func rowsAreDistinguishable() throws {
        let page = try ScrollingPage(width: 200, viewportHeight: 120,
                                     blocks: [.text(lines: 6), .rule, .image(height: 80), .blank(height: 30), .text(lines: 4), .rule],
                                     seed: 12)
        var seen: [ArraySlice<UInt8>: Int] = [:]
        for y in 0..<page.pageHeight { seen[page.pageRow(y), default: 0] += 1 }
        var y = 0
        for block in page.blocks {
            for r in 0..<block.height {
                let row = page.pageRow(y + r)
                let blank = stride(from: row.startIndex, to: row.endIndex, by: 4).allSatisfy { row[$0..<$0 + 4] == row.prefix(4) }
                switch block {
                case .text, .image:
                    if !blank { #expect(seen[row] == 1, "row \(y + r) of \(block) repeats") }
                case .rule where r == 8:
                    #expect(seen[row] == 2, "the rule line appears once per rule")
                default:
                    #expect(blank, "row \(y + r) of \(block) should be blank")
                }
            }
            y += block.height
        }
        // Text lines are mostly ink rows: 12 of every 20 rows.
        let textInk = (0..<120).filter { y in
            let row = page.pageRow(y)
            return !stride(from: row.startIndex, to: row.endIndex, by: 4).allSatisfy { row[$0..<$0 + 4] == row.prefix(4) }
        }.count
        #expect(textInk == 6 * 12)
    }

    @Test("the same seed gives the same page, another seed another page")
    func seeds() throws {
        let a = try ScrollingPage.generated(width: 80, bodyHeight: 600, viewportHeight: 100, seed: 1)
        let b = try ScrollingPage.generated(width: 80, bodyHeight: 600, viewportHeight: 100, seed: 1)
        let c = try ScrollingPage.generated(width: 80, bodyHeight: 600, viewportHeight: 100, seed: 2)
        #expect(a.pageRGBA == b.pageRGBA && a.blocks == b.blocks)
        #expect(a.pageRGBA != c.pageRGBA)
        #expect(a.bodyHeight == 600 && c.bodyHeight == 600)
    }

    @Test("offsets outside the page are clamped to its ends")
    func clampedOffsets() throws {
        let page = try ScrollingPage.generated(width: 40, bodyHeight: 300, viewportHeight: 100, headerHeight: 10)
        let low = page.frame(offset: -50), top = page.frame(offset: 0)
        let high = page.frame(offset: 10_000), bottom = page.frame(offset: page.maximumOffset)
        #expect(UnsafeRawBufferPointer(low.bytes).elementsEqual(UnsafeRawBufferPointer(top.bytes)))
        #expect(UnsafeRawBufferPointer(high.bytes).elementsEqual(UnsafeRawBufferPointer(bottom.bytes)))
    }

    @Test("a layout that cannot be drawn is refused with a reason")
    func invalidLayouts() {
        #expect(throws: ScrollingPageError.self) { try ScrollingPage(width: 0, viewportHeight: 10, blocks: [.blank(height: 20)]) }
        #expect(throws: ScrollingPageError.self) {
            try ScrollingPage(width: 10, viewportHeight: 30, headerHeight: 20, footerHeight: 10, blocks: [.blank(height: 20)])
        }
        #expect(throws: ScrollingPageError.self) { try ScrollingPage(width: 10, viewportHeight: 50, blocks: [.blank(height: 20)]) }
        #expect(throws: ScrollingPageError.self) { try ScrollingPage(width: 10, viewportHeight: 5, blocks: [.text(lines: 0), .blank(height: 20)]) }
        #expect(throws: ScrollingPageError.self) { try ScrollingPage.generated(width: 10, bodyHeight: 0, viewportHeight: 5) }
    }

    @Test("a page of given rows shows them as the blocks' page does: header, the body at its offset, footer")
    func givenRows() throws {
        func row(_ v: UInt8) -> [UInt8] { [v, v &+ 1, v &+ 2, 255, v &+ 3, v, v, 255] }   // 2 pixels
        let page = try ScrollingPage(width: 2, viewportHeight: 4, header: [row(1)], body: (10..<20).map { row(UInt8($0)) },
                                     footer: [row(200)])
        #expect(page.pageHeight == 12 && page.maximumOffset == 8)
        let frame = page.frame(offset: 3, pixelFormat: .rgba)
        let shown = (0..<4).map { y in Array(UnsafeRawBufferPointer(start: frame.storage.bytes.advanced(by: y * frame.stride), count: 8)) }
        #expect(shown == [row(1), row(13), row(14), row(200)])
        #expect(Array(page.pageRow(11)) == row(200))
        #expect(throws: ScrollingPageError.invalidLayout("page row 3 has 4 bytes, not 8")) {
            try ScrollingPage(width: 2, viewportHeight: 2, body: [row(1), row(2), row(3), [0, 0, 0, 0]])
        }
        #expect(throws: ScrollingPageError.self) { try ScrollingPage(width: 2, viewportHeight: 5, body: [row(1)]) }
    }
}
