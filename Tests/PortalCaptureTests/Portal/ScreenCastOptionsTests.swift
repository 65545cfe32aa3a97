import Foundation
import Testing
@testable import PortalCapture

@Suite("ScreenCast options")
struct ScreenCastOptionsTests {
    let all = ScreenCastCapabilities(version: 4, sourceTypes: [.monitor, .window, .virtual],
                                     cursorModes: [.hidden, .embedded, .metadata])

    func capabilities(version: UInt32) -> ScreenCastCapabilities {
        ScreenCastCapabilities(version: version, sourceTypes: [.monitor, .window, .virtual],
                               cursorModes: version >= 2 ? [.hidden, .embedded, .metadata] : [])
    }

    @Test("unset options are not sent")
    func unsetOptionsAreNotSent() throws {
        #expect(try ScreenCastOptions().encoded(for: all).isEmpty)
        #expect(try ScreenCastOptions().sources(.window).encoded(for: all).keys == ["types"])
    }

    @Test("every option is sent with its wire name and type")
    func everyOption() throws {
        let dict = try ScreenCastOptions().sources([.monitor, .window]).multiple(false).cursor(.metadata)
            .persist(.persistent).restoreToken("tok").encoded(for: all)
        #expect(dict == DBusVardict(["types": .uint32(3), "multiple": .bool(false), "cursor_mode": .uint32(4),
                                     "persist_mode": .uint32(2), "restore_token": .string("tok")]))
    }

    @Test("an explicit 'do not persist' is sent as persist_mode 0")
    func explicitNoPersistence() throws {
        #expect(try ScreenCastOptions().persist(.doNotPersist).encoded(for: all)["persist_mode"] == .uint32(0))
    }

    @Test("an option too new for the portal's version fails with requiresVersion", arguments: [
        (ScreenCastOptions().cursor(.embedded), UInt32(1), UInt32(2)),
        (ScreenCastOptions().sources(.virtual), 2, 3),
        (ScreenCastOptions().persist(.application), 3, 4),
        (ScreenCastOptions().restoreToken("t"), 3, 4),
    ])
    func versionGating(options: ScreenCastOptions, version: UInt32, needed: UInt32) {
        #expect(throws: PortalError.requiresVersion(interface: "org.freedesktop.portal.ScreenCast", needed: needed,
                                                    available: version)) {
            try options.encoded(for: capabilities(version: version))
        }
    }

    @Test("each version 1 to 4 takes exactly the options it defines", arguments: [UInt32(1), 2, 3, 4])
    func versionsOneToFour(version: UInt32) {
        let caps = capabilities(version: version)
        let accepted: [String: Bool] = [
            "types": (try? ScreenCastOptions().sources([.monitor, .window]).encoded(for: caps)) != nil,
            "multiple": (try? ScreenCastOptions().multiple(true).encoded(for: caps)) != nil,
            "cursor_mode": (try? ScreenCastOptions().cursor(.hidden).encoded(for: caps)) != nil,
            "virtual": (try? ScreenCastOptions().sources(.virtual).encoded(for: caps)) != nil,
            "persist_mode": (try? ScreenCastOptions().persist(.persistent).encoded(for: caps)) != nil,
            "restore_token": (try? ScreenCastOptions().restoreToken("t").encoded(for: caps)) != nil,
        ]
        #expect(accepted == ["types": true, "multiple": true, "cursor_mode": version >= 2, "virtual": version >= 3,
                             "persist_mode": version >= 4, "restore_token": version >= 4])
    }

    @Test("a source type the portal does not offer is unsupported")
    func unsupportedSource() {
        let monitorsOnly = ScreenCastCapabilities(version: 4, sourceTypes: .monitor, cursorModes: .hidden)
        #expect(throws: PortalError.unsupported(what: "source type window", available: "monitor")) {
            try ScreenCastOptions().sources([.monitor, .window]).encoded(for: monitorsOnly)
        }
    }

    @Test("a cursor mode the portal does not offer is unsupported")
    func unsupportedCursor() {
        let noMetadata = ScreenCastCapabilities(version: 4, sourceTypes: .monitor, cursorModes: [.hidden, .embedded])
        #expect(throws: PortalError.unsupported(what: "cursor mode metadata", available: "hidden|embedded")) {
            try ScreenCastOptions().cursor(.metadata).encoded(for: noMetadata)
        }
    }

    @Test("a cursor mode bit this library does not know is left for the frontend to judge")
    func unknownCursorBit() throws {
        let dict = try ScreenCastOptions().cursor(CursorModes(rawValue: 8)).encoded(for: all)
        #expect(dict["cursor_mode"] == .uint32(8))
    }
}

@Suite("Portal errors")
struct PortalErrorTests {
    @Test("the frontend's error names map to what a caller can act on", arguments: [
        (DBusError.remote(name: "org.freedesktop.portal.Error.InvalidArgument", message: "Unavailable cursor mode 8"),
         PortalError.invalidArgument(message: "Unavailable cursor mode 8")),
        (.remote(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "x"), .portalNotFound),
        (.remote(name: "org.freedesktop.DBus.Error.Spawn.ChildExited", message: "Process exited with status 1"),
         .portalFailedToStart(message: "Process exited with status 1")),
        (.remote(name: "org.freedesktop.systemd1.UnitMasked", message: "Unit xdg-desktop-portal.service is masked."),
         .portalFailedToStart(message: "Unit xdg-desktop-portal.service is masked.")),
        (.remote(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "x"),
         .interfaceMissing(interface: "org.freedesktop.portal.ScreenCast")),
        (.remote(name: "org.freedesktop.DBus.Error.AccessDenied", message: "Invalid session"), .sessionClosed),
        (.remote(name: "org.freedesktop.portal.Error.NotAllowed", message: "no"), .notAllowed(message: "no")),
        (.remote(name: "org.freedesktop.DBus.Error.Failed", message: "Sources not selected"),
         .dbus(name: "org.freedesktop.DBus.Error.Failed", message: "Sources not selected")),
        (.timeout(member: "x", after: .milliseconds(1500)), .timedOut(request: "Start", seconds: 1.5)),
        (.noReply(member: "x", reason: "gone"), .portalVanished(during: "Start")),
        (.disconnected, .busUnavailable(reason: DBusError.disconnected.description)),
        (.malformed(path: [.argument(0)], reason: "expected o, got s"),
         .malformedReply(method: "Start", key: "arg 0", reason: "expected o, got s")),
    ])
    func mapping(error: DBusError, expected: PortalError) {
        #expect(PortalError(error, interface: "org.freedesktop.portal.ScreenCast", method: "Start") == expected)
    }

    @Test("portal not found names xdg-desktop-portal and a backend package")
    func notFoundHint() {
        let text = PortalError.portalNotFound.description
        #expect(text.contains("xdg-desktop-portal"))
        #expect(text.contains("xdg-desktop-portal-gnome"))
    }

    @Test("every error has its own text")
    func descriptions() {
        let errors = PortalErrorExamples.all
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(PortalError.requiresVersion(interface: "i", needed: 4, available: 3).description.contains("version 4"))
    }

    @Test("a timeout's text shows whole seconds without a fraction")
    func timeoutText() {
        #expect(PortalError.timedOut(request: "Start", seconds: 120).description.contains("within 120 s"))
    }
}

@Suite("Consent memory and screenshot options")
struct ConsentMemoryTests {
    func store() -> RestoreTokenStore {
        RestoreTokenStore(directory: FileManager.default.temporaryDirectory
            .appendingPathComponent("consent-\(UUID().uuidString)/restore-tokens"))
    }

    @Test("a zero consent memory remembers nothing")
    func zeroDisables() throws {
        let memory = ConsentMemory(store: store(), maxAge: .zero)
        try memory.remember("tok", for: "app", selection: "")
        #expect(memory.store.entry(for: "app") == nil)
        #expect(!memory.isEnabled)
    }

    @Test("no limit honours an old token; a limit does not")
    func limits() throws {
        let tokens = store()
        let old = Date().addingTimeInterval(-86_400)
        try tokens.store("tok", for: "app", selection: "s", now: old)
        #expect(ConsentMemory(store: tokens, maxAge: nil).token(for: "app", selection: "s") == "tok")
        #expect(ConsentMemory(store: tokens, maxAge: .seconds(3600)).token(for: "app", selection: "s") == nil)
        #expect(tokens.entry(for: "app") == nil)
    }

    @Test("a token is handed out only for the selection it was granted for, and one from before selections were kept for none")
    func tokenMatchesItsSelection() throws {
        let tokens = store()
        let monitor = ScreenCastOptions().sources(.monitor).consentSelection
        let window = ScreenCastOptions().sources(.window).consentSelection
        let several = ScreenCastOptions().sources(.monitor).multiple(true).consentSelection
        #expect(Set([monitor, window, several, ScreenCastOptions().consentSelection]).count == 4)
        try tokens.store("tok", for: "app", selection: window)
        let memory = ConsentMemory(store: tokens, maxAge: nil)
        #expect(memory.token(for: "app", selection: window) == "tok")
        #expect(memory.token(for: "app", selection: monitor) == nil)
        #expect(memory.token(for: "app", selection: several) == nil)
        #expect(tokens.entry(for: "app") != nil, "kept for the window")
        // A file from an older pwrecord: time and token only.
        let file = tokens.directory.appendingPathComponent("old")
        try Data("\(Date().timeIntervalSince1970)\nolder\n".utf8).write(to: file)
        #expect(tokens.entry(for: "old")?.token == "older")
        #expect(memory.token(for: "old", selection: monitor) == nil)
    }

    @Test("unset screenshot options are not sent")
    func screenshotOptions() {
        #expect(PortalScreenshotOptions().encoded().isEmpty)
        #expect(PortalScreenshotOptions().interactive(true).modal(false).encoded()
                == DBusVardict(["interactive": .bool(true), "modal": .bool(false)]))
    }

    @Test("only files below a temporary directory count as temporary")
    func temporaryFiles() {
        let options = PortalScreenshotOptions(temporaryDirectories: ["/tmp", "/var/tmp"])
        #expect(options.isTemporary("/tmp/Screenshot.png"))
        #expect(options.isTemporary("/var/tmp/a/b.png"))
        #expect(!options.isTemporary("/tmpfoo/x.png"))
        #expect(!options.isTemporary("/home/user/Pictures/Screenshot.png"))
    }
}
