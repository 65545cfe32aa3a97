import Foundation
import PortalTestSupport

/// `org.freedesktop.impl.portal.Screenshot` version 2: `Screenshot` writes a PNG of the current content (the
/// stream options' content and size, the next screenshot number as frame counter) to a private file and
/// answers its `file://` URI; `PickColor` answers the colour of the pattern's top-left area (red).
struct ScreenshotBackend: Sendable {
    static let interfaceName = "org.freedesktop.impl.portal.Screenshot"
    let portal: TestPortal

    var interface: DBusInterface {
        let backend = self
        return DBusInterface(Self.interfaceName, methods: [
            .deferred("Screenshot", in: "ossa{sv}", out: "ua{sv}") { backend.screenshot($0) },
            .deferred("PickColor", in: "ossa{sv}", out: "ua{sv}") { backend.pickColor($0) },
        ], properties: [.constant("version", .uint32(2))])
    }

    /// `Screenshot(o handle, s app_id, s parent_window, a{sv} options)`. An `interactive` screenshot counts
    /// as a dialog shown.
    func screenshot(_ call: DBusMethodCall) {
        do {
            let handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            let options = try call.arguments.argument(3, as: DBusVardict.self)
            guard portal.begin(.screenshot, call, handle: handle, options: options) else { return }
            if (try? options.valueIfPresent("interactive", as: Bool.self)) == true { portal.countDialog() }
            let (streamOptions, number) = portal.state.withLock { s in
                s.screenshotsTaken += 1
                return (s.streamOptions, s.screenshotsTaken)
            }
            do {
                let png = try Self.picture(of: streamOptions, frameNumber: number)
                let path = try portal.screenshots.write(png, number: number)
                portal.respond(call, 0, ["uri": URL(fileURLWithPath: path).absoluteString])
            } catch {
                BackendLog.write("Screenshot: \(error)")
                portal.respond(call, 2)
            }
        } catch {
            portal.reject(call, error)
        }
    }

    /// `PickColor(o handle, s app_id, s parent_window, a{sv} options)` → `color (ddd)`.
    func pickColor(_ call: DBusMethodCall) {
        do {
            let handle = try call.arguments.argument(0, as: DBusObjectPath.self)
            let options = try call.arguments.argument(3, as: DBusVardict.self)
            guard portal.begin(.pickColor, call, handle: handle, options: options) else { return }
            let (r, g, b) = TestPattern.red
            let color = DBusValue.structure([.double(Double(r) / 255), .double(Double(g) / 255), .double(Double(b) / 255)])
            portal.respond(call, 0, ["color": color])
        } catch {
            portal.reject(call, error)
        }
    }

    /// The PNG of frame `frameNumber` of the content `options` describe (no cursor), encoded by `PNGWriter`.
    static func picture(of options: StreamOptions, frameNumber: UInt32) throws(BackendError) -> [UInt8] {
        var format = options.videoFormat
        format.pixelFormat = .rgbx
        let storage = FrameStorage(capacity: format.minimumStride * format.height)
        FrameContent(options: options, drawsCursor: false)
            .render(into: storage.bytes, stride: format.minimumStride, format: format, frameNumber: frameNumber)
        let frame = VideoFrame(format: format, stride: format.minimumStride, timestamp: monotonicNanoseconds(),
                               sequence: UInt64(frameNumber), storage: storage)
        do {
            return try PNGWriter().encode(StitchedImage(frame: frame)).bytes
        } catch {
            throw .screenshotEncoding(error)
        }
    }
}
