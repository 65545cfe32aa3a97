import Foundation
import Testing
@testable import PortalCapture

@Suite("D-Bus match rules and connection setup, without a bus")
struct DBusMatchRuleTests {
    static let request = try! DBusObjectPath("/org/freedesktop/portal/desktop/request/1_42/pwrecord1")

    @Test("a rule is written in the bus's syntax with only the fields that are set")
    func ruleText() {
        let rule = DBusMatchRule(sender: "org.freedesktop.portal.Desktop", path: Self.request,
                                 interface: "org.freedesktop.portal.Request", member: "Response")
        #expect(rule.description == "type='signal',sender='org.freedesktop.portal.Desktop',"
                + "path='/org/freedesktop/portal/desktop/request/1_42/pwrecord1',"
                + "interface='org.freedesktop.portal.Request',member='Response'")
        #expect(DBusMatchRule().description == "type='signal'")
        #expect(DBusMatchRule.nameOwnerChanged("org.freedesktop.portal.Desktop").description
                == "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.portal.Desktop'")
    }

    @Test("an apostrophe in a value is escaped as the specification says")
    func quoting() {
        #expect(DBusMatchRule(arguments: [2: "it's"]).description == "type='signal',arg2='it'\\''s'")
    }

    @Test("local matching checks sender, path, namespace, interface, member and string arguments", arguments: [
        (DBusMatchRule(member: "Response"), true),
        (DBusMatchRule(member: "Closed"), false),
        (DBusMatchRule(path: request), true),
        (DBusMatchRule(pathNamespace: try! DBusObjectPath("/org/freedesktop/portal/desktop")), true),
        (DBusMatchRule(pathNamespace: try! DBusObjectPath("/org/freedesktop/portal/desk")), false),
        (DBusMatchRule(interface: "org.freedesktop.portal.Request"), true),
        (DBusMatchRule(sender: ":1.9"), true),
        (DBusMatchRule(sender: ":1.10"), false),
        (DBusMatchRule(sender: "org.freedesktop.portal.Desktop"), true),   // resolves to :1.9 below
        (DBusMatchRule(sender: "org.other.Name"), false),                  // resolves to nobody
        (DBusMatchRule(arguments: [1: "yes"]), true),
        (DBusMatchRule(arguments: [1: "no"]), false),
        (DBusMatchRule(arguments: [0: "0"]), false),                       // arg 0 is a u, not a string
        (DBusMatchRule(arguments: [5: "yes"]), false),
    ])
    func localMatching(rule: DBusMatchRule, expected: Bool) {
        let owner = rule.sender == "org.freedesktop.portal.Desktop" ? ":1.9" : nil
        let matched = rule.matches(sender: ":1.9", path: Self.request, interface: "org.freedesktop.portal.Request",
                                   member: "Response", senderOwner: owner,
                                   arguments: { [.uint32(0), .string("yes")] })
        #expect(matched == expected)
    }

    @Test("the session bus address comes from the environment, else from the runtime directory")
    func sessionAddress() throws {
        #expect(try DBusConnection.sessionBusAddress(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"])
                == "unix:path=/x")
        #expect(throws: DBusError.noSessionBus) { _ = try DBusConnection.sessionBusAddress(environment: [:]) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pwrecord-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: DBusError.noSessionBus) {
            _ = try DBusConnection.sessionBusAddress(environment: ["XDG_RUNTIME_DIR": empty.path])
        }
        #expect(DBusError.noSessionBus.description.contains("dbus-run-session"))
    }

    @Test("connecting to an address where no bus listens fails with connectionFailed, not a crash or exit")
    func connectionFailure() {
        #expect {
            _ = try DBusConnection(address: "unix:path=/nonexistent/pwrecord/bus")
        } throws: { error in
            guard case .connectionFailed(let address, let name, _)? = error as? DBusError else { return false }
            return address == "unix:path=/nonexistent/pwrecord/bus" && name.hasPrefix("org.freedesktop.DBus.Error.")
        }
        #expect(throws: DBusError.self) { _ = try DBusConnection(address: "not an address") }
    }

    @Test("every error says what happened, and remote errors with a known name add a hint", arguments: [
        (DBusError.remote(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "The name is not activatable"),
         "install xdg-desktop-portal"),
        (.timeout(member: "org.freedesktop.portal.ScreenCast.Start", after: .seconds(2)), "within 2"),
        (.malformed(path: [.argument(1), .key("streams"), .index(0), .field(1)], reason: "expected a{sv}, got u"),
         "arg 1 / key 'streams' / [0] / field 1: expected a{sv}, got u"),
        (.nameTaken("org.example"), "owned by another process"),
        (.disconnected, "open a new connection"),
    ])
    func descriptions(error: DBusError, text: String) {
        #expect(error.description.contains(text))
    }
}
