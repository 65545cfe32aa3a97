import Foundation
import Synchronization
import Testing
@testable import PortalCapture

/// Signals, properties, introspection, fallbacks and names, on a private dbus-daemon started by each test.
@Suite("D-Bus signals and exported objects on a private bus", .enabled(if: PrivateBus.isAvailable), .serialized)
struct DBusConnectionServerTests {
    typealias Pair = DBusConnectionCallTests.Pair
    static let changed = DBusMatchRule(path: TestService.path, interface: TestService.interface, member: "Changed")

    static func emit(_ connection: DBusConnection, _ text: String, member: String = "Changed",
                     path: DBusObjectPath = TestService.path) throws {
        try connection.emitSignal(path: path, interface: TestService.interface, member: member, body: [.string(text)])
    }

    static func texts(_ signals: [DBusSignal]) -> [String] {
        signals.map { (try? $0.arguments.argument(0, as: String.self)) ?? "?" }
    }

    @Test("signals are received through a match rule, and only the matching ones")
    func matchRule() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let subscription = try await pair.client.subscribe(Self.changed)
        try Self.emit(pair.server, "other member", member: "Other")
        try Self.emit(pair.server, "other path", path: DBusObjectPath("/elsewhere"))
        try Self.emit(pair.server, "one")
        try Self.emit(pair.server, "two")
        let signals = await collect(subscription, count: 2)
        #expect(Self.texts(signals) == ["one", "two"])
        #expect(signals.first?.sender == pair.server.uniqueName)
        #expect(signals.first?.path == TestService.path)
        #expect(signals.first?.member == "Changed")
    }

    @Test("a subscription made before a call receives the signal the call triggers")
    func subscribeBeforeCall() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let server = pair.server
        let requestPath = try DBusObjectPath("/org/freedesktop/portal/desktop/request/1_2/pwrecord7")
        try server.export([DBusInterface("org.pwrecord.Portal", methods: [
            .deferred("Start", out: "o") { call in
                // Answer first and emit at once, as a portal does: a client subscribing late would miss it.
                try? call.reply([.objectPath(requestPath)])
                try? server.emitSignal(path: requestPath, interface: "org.freedesktop.portal.Request", member: "Response",
                                       body: [.uint32(0), .vardict(["streams": .array(element: .structure([.uint32, .vardict]), [])])],
                                       destination: call.sender)
            },
        ])], at: DBusObjectPath("/portal"))
        let subscription = try await pair.client.subscribe(DBusMatchRule(
            sender: server.uniqueName, path: requestPath, interface: "org.freedesktop.portal.Request", member: "Response"))
        let reply = try await pair.client.call(destination: server.uniqueName, path: DBusObjectPath("/portal"),
                                               interface: "org.pwrecord.Portal", member: "Start")
        #expect(try reply.argument(0, as: DBusObjectPath.self) == requestPath)
        let responses = await collect(subscription, count: 1)
        #expect(responses.count == 1)
        #expect(try responses.first?.arguments.argument(0, as: UInt32.self) == 0)
    }

    @Test("a well-known sender in a rule only matches the name's owner")
    func wellKnownSender() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let intruder = try pair.bus.connect()
        defer { intruder.close() }
        try await pair.server.requestName("org.pwrecord.Service")
        let owned = try await pair.client.subscribe(DBusMatchRule(sender: "org.pwrecord.Service", interface: TestService.interface,
                                                                  member: "Changed"))
        let everyone = try await pair.client.subscribe(DBusMatchRule(interface: TestService.interface, member: "Changed"))
        try Self.emit(intruder, "intruder")
        try await intruder.ping(pair.client.uniqueName)  // the client has routed the intruder's signal by now
        try Self.emit(pair.server, "genuine")
        #expect(Self.texts(await collect(owned, count: 1)) == ["genuine"])
        #expect(Self.texts(await collect(everyone, count: 2)) == ["intruder", "genuine"])
    }

    @Test("a handler subscription is called on each signal and stops after cancel")
    func handlerSubscription() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let subscription = try await pair.client.subscribe(Self.changed) { signal in
            continuation.yield((try? signal.arguments.argument(0, as: String.self)) ?? "?")
        }
        try Self.emit(pair.server, "first")
        #expect(await collect(stream, count: 1) == ["first"])
        subscription.cancel()
        try await pair.client.ping(pair.server.uniqueName)  // the cancellation has run on the client's queue
        try Self.emit(pair.server, "after cancel")
        try await pair.server.ping(pair.client.uniqueName)  // the signal has been routed by now
        continuation.finish()
        #expect(await collect(stream, count: 1, within: .milliseconds(200)) == [])
    }

    @Test("releasing a subscription ends it; closing the connection ends iteration")
    func subscriptionLifetime() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let subscription = try await pair.client.subscribe(Self.changed)
        let iteration = Task { await collect(subscription, count: 100, within: .seconds(10)) }
        try Self.emit(pair.server, "before close")
        try await Task.sleep(for: .milliseconds(100))
        pair.client.close()
        let (signals, elapsed) = await measure { await iteration.value }
        #expect(Self.texts(signals) == ["before close"])
        #expect(elapsed < .seconds(5))
    }

    @Test("an invalid match rule is refused before it reaches the bus", arguments: [
        DBusMatchRule(interface: "no dots"), DBusMatchRule(member: "a.b"), DBusMatchRule(arguments: [64: "x"]),
        DBusMatchRule(path: .root, pathNamespace: .root),
    ])
    func invalidRule(rule: DBusMatchRule) async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect(throws: DBusError.self) { _ = try await pair.client.subscribe(rule) }
    }

    @Test("Properties.Get and GetAll return the exported properties; Set is refused")
    func properties() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        func properties(_ member: String, _ body: [DBusValue]) async throws(DBusError) -> [DBusValue] {
            try await pair.client.call(destination: pair.server.uniqueName, path: TestService.path,
                                       interface: "org.freedesktop.DBus.Properties", member: member, body: body)
        }
        let version = try await properties("Get", [.string(TestService.interface), .string("version")])
        #expect(version.signature == "v")
        #expect(try version.argument(0, as: UInt32.self) == 4)
        let all = try await properties("GetAll", [.string(TestService.interface)]).argument(0, as: DBusVardict.self)
        #expect(try all.requireUInt32("version") == 4)
        #expect(try all.requireString("Name") == "test service")
        let viaHelper = try await pair.client.property(destination: pair.server.uniqueName, path: TestService.path,
                                                       interface: TestService.interface, name: "version")
        #expect(viaHelper == .uint32(4))
        #expect(try await pair.client.allProperties(destination: pair.server.uniqueName, path: TestService.path,
                                                    interface: TestService.interface) == all)
        await #expect(throws: DBusError.remote(name: "org.freedesktop.DBus.Error.UnknownProperty",
                                               message: "No property nope on org.pwrecord.Test")) {
            _ = try await properties("Get", [.string(TestService.interface), .string("nope")])
        }
        await #expect {
            _ = try await properties("Set", [.string(TestService.interface), .string("version"), .variant(.uint32(5))])
        } throws: { error in
            guard case .remote(let name, _)? = error as? DBusError else { return false }
            return name == "org.freedesktop.DBus.Error.PropertyReadOnly"
        }
    }

    @Test("Introspect lists interfaces, methods, properties, signals and child nodes")
    func introspection() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        func introspect(_ path: String) async throws -> String {
            try await pair.client.call(destination: pair.server.uniqueName, path: DBusObjectPath(path),
                                       interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
                .argument(0, as: String.self)
        }
        let xml = try await introspect("/org/pwrecord/Test")
        #expect(xml.contains("<interface name=\"org.pwrecord.Test\">"))
        #expect(xml.contains("<method name=\"Fail\"><arg type=\"s\" direction=\"in\"/></method>"))
        #expect(xml.contains("<property name=\"version\" type=\"u\" access=\"read\"/>"))
        #expect(xml.contains("<signal name=\"Changed\"><arg type=\"s\"/></signal>"))
        #expect(xml.contains("org.freedesktop.DBus.Properties"))
        #expect(try await introspect("/").contains("<node name=\"org\"/>"))
        #expect(try await introspect("/org/pwrecord").contains("<node name=\"Test\"/>"))
        #expect(xml.hasSuffix("</node>\n"))
    }

    @Test("a fallback export answers calls for any path below its prefix, and unexport removes it")
    func fallback() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let prefix = try DBusObjectPath("/org/freedesktop/portal/desktop")
        try pair.server.exportFallback([DBusInterface("org.freedesktop.impl.portal.Request", methods: [
            .replying("Close", out: "s") { call in [.string(call.path.rawValue)] },
        ])], under: prefix)
        let requestPath = try prefix.appending("request").appending("1_7").appending("token42")
        func close(_ path: DBusObjectPath) async throws(DBusError) -> [DBusValue] {
            try await pair.client.call(destination: pair.server.uniqueName, path: path,
                                       interface: "org.freedesktop.impl.portal.Request", member: "Close")
        }
        #expect(try await close(requestPath) == [.string(requestPath.rawValue)])
        #expect(try await close(prefix) == [.string(prefix.rawValue)])
        await #expect(throws: DBusError.self) { _ = try await close(DBusObjectPath("/org/freedesktop/portal/desktopx")) }
        #expect(throws: DBusError.self) { try pair.server.exportFallback([], under: prefix) }
        pair.server.unexport(prefix)
        await #expect {
            _ = try await close(requestPath)
        } throws: { error in
            guard case .remote(let name, _)? = error as? DBusError else { return false }
            return name == "org.freedesktop.DBus.Error.UnknownObject"
        }
    }

    @Test("exporting twice at one path, or a bad interface, is an error")
    func exportErrors() throws {
        let pair = try Pair()
        defer { pair.stop() }
        #expect(throws: DBusError.self) { try pair.server.export([], at: TestService.path) }
        #expect(throws: DBusError.self) { try pair.server.export([DBusInterface("bad")], at: DBusObjectPath("/a")) }
        #expect(throws: DBusError.self) {
            try pair.server.export([DBusInterface("a.b", methods: [.replying("M", in: "a{") { _ in [] }])], at: DBusObjectPath("/a"))
        }
    }

    @Test("NameOwnerChanged is seen when a name is acquired and released")
    func nameOwnerChanged() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let name = "org.pwrecord.Watched"
        let watch = try await pair.client.watchNameOwner(name)
        #expect(try await pair.client.nameOwner(name) == nil)
        #expect(try await pair.server.requestName(name) == .primaryOwner)
        #expect(try await pair.client.nameOwner(name) == pair.server.uniqueName)
        #expect(try await pair.server.releaseName(name))
        let owners = await collect(watch, count: 3)
        #expect(owners == [nil, pair.server.uniqueName, nil])
    }

    @Test("requesting a name someone else owns throws nameTaken")
    func nameTaken() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        try await pair.server.requestName("org.pwrecord.Taken")
        await #expect(throws: DBusError.nameTaken("org.pwrecord.Taken")) {
            try await pair.client.requestName("org.pwrecord.Taken")
        }
        #expect(try await pair.client.requestName("org.pwrecord.Taken", flags: []) == .inQueue)
    }

    @Test("a name owner's watch starts with the current owner")
    func watchStartsWithOwner() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        try await pair.server.requestName("org.pwrecord.Present")
        let watch = try await pair.client.watchNameOwner("org.pwrecord.Present")
        let server = pair.server
        Task { server.close() }
        #expect(await collect(watch, count: 2) == [pair.server.uniqueName, nil])
    }

    @Test("a name owner watch ends when its connection closes")
    func watchEndsOnClose() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let watch = try await pair.client.watchNameOwner("org.pwrecord.Nobody")
        let client = pair.client
        Task {
            try? await Task.sleep(for: .milliseconds(50))
            client.close()
        }
        let (owners, elapsed) = await measure { await collect(watch, count: 10, within: .seconds(10)) }
        #expect(owners == [nil])
        #expect(elapsed < .seconds(5))
    }
}
