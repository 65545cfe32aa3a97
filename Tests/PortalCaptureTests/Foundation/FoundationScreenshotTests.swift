import Foundation
import Testing
import PortalCapture
import PortalTestSupport

/// Screenshot through the real frontend: a PNG of the current content in a private file.
@Suite("Screenshot through the real frontend", .tags(.desktop), .enabled(if: TestDesktop.isAvailable), .serialized)
struct FoundationScreenshotTests {
    /// Forgets the remembered Screenshot permission (`PermissionStore.Delete`), so the next non-interactive
    /// screenshot asks the Access dialog again.
    func forgetScreenshotPermission(_ bus: DBusConnection) async {
        _ = try? await bus.call(destination: "org.freedesktop.impl.portal.PermissionStore",
                                path: DBusObjectPath(testConstant: "/org/freedesktop/impl/portal/PermissionStore"),
                                interface: "org.freedesktop.impl.portal.PermissionStore", member: "Delete",
                                body: [.string("screenshot"), .string("screenshot")])
    }

    /// The local path of a `file://` URI.
    func path(of uri: String) throws -> String {
        let url = try #require(URL(string: uri), "uri \(uri)")
        #expect(url.isFileURL, "\(uri)")
        return url.path
    }

    @Test("Screenshot returns a file URI of a private PNG that shows the test pattern at the stream options' size")
    func screenshotShowsThePattern() async throws {
        try await TestPortalControl.exclusively { control in
            try await control.setStreamOptions(["width": UInt32(400), "height": UInt32(300)])
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let first = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")],
                                                 options: ["interactive": false])
            #expect(first.code == 0, "\(first)")
            let file = try path(of: try first.results.requireString("uri"))
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect((attributes[.ownerAccountID] as? NSNumber)?.uint32Value == getuid())
            let directory = try FileManager.default.attributesOfItem(atPath: (file as NSString).deletingLastPathComponent)
            #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)

            let picture = try DecodedPNG.frame(atPath: file)
            #expect(picture.format.width == 400 && picture.format.height == 300)
            #expect(TestPattern.checkColourAreas(picture, tolerance: 0) == nil)
            let options = try await control.lastOptions("Screenshot")
            #expect(options["interactive"] == .bool(false))
            #expect(options["permission_store_checked"] == .bool(true), "the frontend checked the permission: \(options)")

            let second = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")])
            let later = try DecodedPNG.frame(atPath: try path(of: try second.results.requireString("uri")))
            #expect(TestPattern.decodeCounter(later) > TestPattern.decodeCounter(picture), "the content moves on")
        }
    }

    @Test("an interactive screenshot counts as a dialog; a non-interactive one does not")
    func interactiveScreenshotCountsADialog() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            // Make sure the permission is remembered, so no Access dialog is involved below.
            _ = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")])
            try await control.reset()
            #expect(try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")]).code == 0)
            #expect(try await control.stat("dialogs_shown") == 0)
            #expect(try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")],
                                             options: ["interactive": true]).code == 0)
            #expect(try await control.stat("dialogs_shown") == 1)
        }
    }

    @Test("the first non-interactive screenshot asks the Access dialog; declining it gives the client 2")
    func declinedAccessDialogFails() async throws {
        try await TestPortalControl.exclusively { control in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            await forgetScreenshotPermission(portal.bus)
            try await control.setNextResponse("AccessDialog", 1)
            let declined = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")])
            #expect(declined.code == 2, "\(declined)")
            #expect(try await control.stat("dialogs_shown") == 0, "a scripted answer is not a dialog shown")
            let access = try await control.lastOptions("AccessDialog")
            #expect(access["grant_label"] != nil, "the frontend asked AccessDialog: \(access)")

            await forgetScreenshotPermission(portal.bus)
            let granted = try await portal.request(RawPortal.screenshot, "Screenshot", [.string("")])
            #expect(granted.code == 0, "\(granted)")
            #expect(try await control.stat("dialogs_shown") == 1, "the Access dialog was shown and granted")
        }
    }

    @Test("PickColor answers the colour of the pattern's red area")
    func pickColor() async throws {
        try await TestPortalControl.exclusively { _ in
            let portal = try RawPortal.connect()
            defer { portal.bus.close() }
            let response = try await portal.request(RawPortal.screenshot, "PickColor", [.string("")])
            #expect(response.code == 0)
            let color = try #require(response.results["color"]).structFields()
            #expect(color == [.double(1), .double(0), .double(0)])
        }
    }
}
