import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// Page mode (`content: page`): the backend streams a `ScrollingPage` for long-screenshot tests.
@Suite("Page mode of the test backend", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct FoundationPageModeTests {
    /// One hash per row of RGB pixels, whatever the byte order.
    static func rowHashes(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int,
                          offsets: (r: Int, g: Int, b: Int)) -> [Int] {
        (0..<height).map { y in
            var hasher = Hasher()
            let row = bytes.baseAddress!.advanced(by: y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                hasher.combine(row[x * 4 + offsets.r])
                hasher.combine(row[x * 4 + offsets.g])
                hasher.combine(row[x * 4 + offsets.b])
            }
            return hasher.finalize()
        }
    }

    static func hashes(of frame: VideoFrame) -> [Int] {
        let f = frame.format.pixelFormat
        return rowHashes(frame.bytes, width: frame.format.width, height: frame.format.height, stride: frame.stride,
                         offsets: (f.redOffset, f.greenOffset, f.blueOffset))
    }

    /// The scroll offsets at which `page` shows exactly the rows hashed in `rows`.
    static func offsets(of rows: [Int], in page: ScrollingPage, pageRows: [Int]) -> [Int] {
        (0...page.maximumOffset).filter { offset in
            rows.indices.allSatisfy { rows[$0] == pageRows[page.pageRow(forViewportRow: $0, offset: offset)] }
        }
    }

    @Test("page mode streams the ScrollingPage with its fixed header and footer, scrolled by scroll_step rows per frame")
    func pageModeScrolls() async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["content": "page", "page_height": UInt32(1200), "header": UInt32(20),
                                                "footer": UInt32(12), "scroll_step": Int32(16), "fps": UInt32(60)])
            let page = try ScrollingPage.generated(width: 320, bodyHeight: 1200 - 32, viewportHeight: 240,
                                                   headerHeight: 20, footerHeight: 12)
            let pageRows = page.pageRGBA.withUnsafeBytes {
                Self.rowHashes($0, width: 320, height: page.pageHeight, stride: 320 * 4, offsets: (0, 1, 2))
            }
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            let seen = Observations<[Int]>()
            let capture = try await PortalStreamCapture.open(portal, session: session,
                                                             nodeID: try #require(streams.first).nodeID) { frame in
                seen.append(Self.hashes(of: frame))
            }
            defer { capture.stop() }
            #expect(await eventually(timeout: .seconds(10)) { seen.all.count >= 12 })
            let matches = seen.all.map { Self.offsets(of: $0, in: page, pageRows: pageRows) }
            #expect(matches.allSatisfy { !$0.isEmpty }, "every frame is the page at some offset")
            let offsets = matches.compactMap(\.first)
            #expect(offsets.allSatisfy { $0 % 16 == 0 || $0 == page.maximumOffset }, "\(offsets)")
            #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 }, "scrolling down: \(offsets)")
            #expect(Set(offsets).count > 3, "it scrolls: \(offsets)")

            let shot = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")])
            let url = try #require(URL(string: try shot.results.requireString("uri")))
            let picture = try DecodedPNG.frame(atPath: url.path)
            #expect(!Self.offsets(of: Self.hashes(of: picture), in: page, pageRows: pageRows).isEmpty,
                    "the screenshot shows the page too")
            try await portal.closeSession(session)
        }
    }

    @Test("a page shorter than a frame is refused")
    func shortPageIsRefused() async throws {
        try await TestPortalControl.exclusively { control in
            _ = await #expect(throws: DBusError.self) {
                try await control.setStreamOptions(["content": "page", "page_height": UInt32(100)])
            }
        }
    }
}
