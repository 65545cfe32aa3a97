import Synchronization
import Testing
import PortalCapture
import PortalTestSupport

/// ScreenCast through the real frontend, frames read with our PipeWire layer through the portal's fd.
@Suite("ScreenCast round trips through the real frontend", .tags(.desktop), .enabled(if: TestDesktop.isAvailable),
       .serialized)
struct FoundationScreenCastTests {
    struct StreamCase: Sendable, CustomTestStringConvertible {
        var pixelFormat: PixelFormat
        var width: Int
        var height: Int
        var testDescription: String { "\(pixelFormat.rawValue) \(width)x\(height)" }
    }

    static let cases = PixelFormat.allCases.map { StreamCase(pixelFormat: $0, width: 320, height: 240) }
        + [StreamCase(pixelFormat: .rgba, width: 352, height: 288)]

    @Test("CreateSession, SelectSources, Start and OpenPipeWireRemote give a node with frames of the chosen size, format and content",
          arguments: cases)
    func roundTripGivesExpectedFrames(_ c: StreamCase) async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["width": UInt32(c.width), "height": UInt32(c.height),
                                                "format": c.pixelFormat.rawValue, "fps": UInt32(60)])
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast(["types": UInt32(1)])
            try #require(streams.count == 1, "\(streams)")
            let stream = streams[0]
            #expect(stream.size?.width == Int32(c.width) && stream.size?.height == Int32(c.height))
            #expect(stream.sourceType == 1)
            #expect(try await control.stat("live_streams") == 1)

            let capture = try await PortalStreamCapture.open(portal, session: session, nodeID: stream.nodeID)
            defer { capture.stop() }
            // The portal's fd shows only the session's node: not the test microphone, not other nodes.
            #expect(capture.core.nodes.map(\.id) == [stream.nodeID], "\(capture.core.nodes)")
            let arrived = await capture.collector.wait(timeout: .seconds(10)) { $0.count >= 12 }
            let frames = capture.collector.summaries
            #expect(arrived, "\(frames.count) frames; \(capture.stream.statistics)")
            let expected = VideoFormat(pixelFormat: c.pixelFormat, width: c.width, height: c.height, frameRate: FrameRate(60))
            for frame in frames {
                #expect(frame.format == expected)
                #expect(frame.colourMismatch == nil)
                #expect(frame.cursor == nil, "cursor mode hidden (the default) sends no cursor")
            }
            let counters = frames.map(\.counter)
            #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "counters \(counters)")

            try await portal.closeSession(session)
            #expect(await eventually { (try? await control.stat("live_streams")) == 0 }, "closing the session ends its stream")
            #expect(await capture.collector.waitForEvent { if case .ended = $0 { true } else { false } },
                    "the consumer sees its node go")
        }
    }

    @Test("multiple with both source types gives a monitor stream and a window stream, side by side in the results")
    func multipleGivesTwoStreams() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast(["types": UInt32(3), "multiple": true])
            #expect(streams.map(\.sourceType) == [1, 2])
            #expect(Set(streams.map(\.nodeID)).count == 2)
            #expect(try await control.stat("live_streams") == 2)
            let two = try await portal.startScreenCast(["types": UInt32(1), "multiple": true])
            #expect(two.streams.map(\.sourceType) == [1, 1])
            let positions = two.streams.compactMap { try? $0.properties["position"]?.structFields() }
            #expect(positions == [[.int32(0), .int32(0)], [.int32(320), .int32(0)]], "two monitors side by side")
            let window = try await portal.startScreenCast(["types": UInt32(2)])
            #expect(window.streams.map(\.sourceType) == [2])
            #expect(window.streams.first?.properties["position"] == nil, "windows have no position")
            for s in [session, two.session, window.session] { try await portal.closeSession(s) }
        }
    }

    @Test("streams_per_source makes one source give that many streams")
    func streamsPerSource() async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["streams_per_source": UInt32(3)])
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast()
            #expect(streams.count == 3)
            #expect(Set(streams.map(\.nodeID)).count == 3)
            #expect(streams.allSatisfy { $0.sourceType == 1 })
            try await portal.closeSession(session)
        }
    }

    @Test("cursor mode metadata attaches the test cursor as SPA cursor metadata, moving along its path")
    func metadataCursor() async throws {
        try await TestPortalControl.exclusively { _ in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast(["cursor_mode": UInt32(4)])
            let capture = try await PortalStreamCapture.open(portal, session: session, nodeID: try #require(streams.first).nodeID)
            defer { capture.stop() }
            #expect(await capture.collector.wait { $0.count >= 8 })
            let frames = capture.collector.summaries
            for frame in frames {
                let cursor = try #require(frame.cursor, "every frame carries the cursor")
                let expected = TestCursor.position(frameNumber: frame.counter, width: 320, height: 240)
                #expect(cursor.x == expected.x && cursor.y == expected.y, "frame \(frame.counter)")
                #expect(cursor.hotspotX == TestCursor.hotspotX && cursor.hotspotY == TestCursor.hotspotY)
                #expect(cursor.bitmap == TestCursor.bitmap)
                #expect(frame.colourMismatch == nil, "metadata mode leaves the pixels alone")
            }
            try await portal.closeSession(session)
        }
    }

    @Test("cursor mode embedded draws the test cursor into the pixels where it is on that frame, without metadata")
    func embeddedCursor() async throws {
        try await TestPortalControl.exclusively { _ in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let (session, _, streams) = try await portal.startScreenCast(["cursor_mode": UInt32(2)])
            let seen = Observations<(counter: UInt32, drawn: Bool, metadata: Bool)>()
            let capture = try await PortalStreamCapture.open(
                portal, session: session, nodeID: try #require(streams.first).nodeID) { frame in
                    // The arrow may hide part of the counter band: read the counter on the band's top and
                    // bottom rows (further apart than the arrow is tall) and trust it only when both agree.
                    let band = TestPattern.counterBandHeight(height: frame.format.height)
                    let n = Self.counter(frame, row: 1)
                    guard n == Self.counter(frame, row: band - 2) else { return }
                    let p = TestCursor.position(frameNumber: n, width: frame.format.width, height: frame.format.height)
                    // Inside the arrow, 5 rows below the hotspot: its white fill at dx 2, its black edge at dx 0.
                    let x = p.x, y = p.y + 5
                    guard x + 2 < frame.format.width, y < frame.format.height, y >= band else { return }
                    let fill = frame.rgb(x: x + 2, y: y), edge = frame.rgb(x: x, y: y)
                    let drawn = fill == (255, 255, 255) && edge == (0, 0, 0)
                    seen.append((n, drawn, frame.cursor != nil))
                }
            defer { capture.stop() }
            #expect(await eventually(timeout: .seconds(10)) { seen.all.count >= 8 })
            let frames = seen.all
            #expect(frames.allSatisfy { $0.drawn }, "\(frames.filter { !$0.drawn }.map(\.counter)) lack the cursor")
            #expect(frames.allSatisfy { !$0.metadata })
            try await portal.closeSession(session)
        }
    }

    /// The frame counter read from one row of the counter band (as `TestPattern.decodeCounter` reads its middle).
    static func counter(_ frame: VideoFrame, row: Int) -> UInt32 {
        (0..<TestPattern.counterBits).reduce(UInt32(0)) { value, cell in
            let c = frame.rgb(x: (cell * frame.format.width + frame.format.width / 2) / TestPattern.counterBits, y: row)
            return value << 1 | ((Int(c.r) * 299 + Int(c.g) * 587 + Int(c.b) * 114) / 1000 > 128 ? 1 : 0)
        }
    }
}
