import Foundation
import Glibc
import Testing
@testable import PortalCapture
import PortalTestSupport

/// Method calls between two connections in one process, on a private dbus-daemon started by each test.
@Suite("D-Bus calls on a private bus", .enabled(if: PrivateBus.isAvailable), .serialized)
struct DBusConnectionCallTests {
    /// A bus, a server exporting ``TestService`` and a client.
    struct Pair {
        let bus: PrivateBus
        let server: DBusConnection
        let client: DBusConnection

        init() throws {
            bus = try PrivateBus()
            server = try bus.connect()
            client = try bus.connect()
            try server.export(TestService.interfaces, at: TestService.path)
        }

        func stop() {
            client.close()
            server.close()
            bus.stop()
        }
    }

    @Test("each connection gets its own unique name from the bus")
    func uniqueNames() throws {
        let pair = try Pair()
        defer { pair.stop() }
        #expect(pair.client.uniqueName.hasPrefix(":"))
        #expect(pair.server.uniqueName.hasPrefix(":"))
        #expect(pair.client.uniqueName != pair.server.uniqueName)
        #expect(pair.client.isConnected)
    }

    @Test("a call returns the exported method's reply, with every kind of value")
    func echo() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let body = DBusValueRoundTripTests.basics + DBusValueRoundTripTests.containers
        #expect(try await TestService.call(pair.client, pair.server, "Echo", body) == body)
        #expect(try await TestService.call(pair.client, pair.server, "Echo") == [])
    }

    @Test("an async handler's result is the reply")
    func asyncHandler() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let reply = try await TestService.call(pair.client, pair.server, "Sum", [.uint32(40), .uint32(2)])
        #expect(try reply.argument(0, as: UInt32.self) == 42)
    }

    @Test("an error reply arrives as DBusError.remote with its name and message")
    func remoteError() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect(throws: DBusError.remote(name: "org.freedesktop.portal.Error.InvalidArgument",
                                               message: "types: 9 is not a source type")) {
            _ = try await TestService.call(pair.client, pair.server, "Fail", [.string("types: 9 is not a source type")])
        }
    }

    @Test("a deferred reply is answered later and still reaches the caller")
    func deferredReply() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (reply, elapsed) = try await measure {
            try await TestService.call(pair.client, pair.server, "Later", [.uint32(200)])
        }
        #expect(reply == [.string("late")])
        #expect(elapsed >= .milliseconds(200))
    }

    @Test("a never-answered call fails with DBusError.timeout within its timeout")
    func timeout() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (result, elapsed) = await measure {
            await callError { () async throws(DBusError) in
                try await TestService.call(pair.client, pair.server, "Never", timeout: .milliseconds(300))
            }
        }
        #expect(result == .timeout(member: "org.pwrecord.Test.Never", after: .milliseconds(300)))
        #expect(elapsed >= .milliseconds(290) && elapsed < .milliseconds(1500), "took \(elapsed)")
    }

    @Test("a peer that leaves without replying gives noReply, not a timeout")
    func peerLeaves() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let server = pair.server
        Task {
            try? await Task.sleep(for: .milliseconds(100))
            server.close()
        }
        let (result, elapsed) = await measure {
            await callError { () async throws(DBusError) in
                try await TestService.call(pair.client, server, "Never", timeout: .seconds(10))
            }
        }
        guard case .noReply(let member, _)? = result else { Issue.record("got \(String(describing: result))"); return }
        #expect(member == "org.pwrecord.Test.Never")
        #expect(elapsed < .seconds(5))
    }

    @Test("a cancelled task cancels its pending call at once")
    func cancellation() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let client = pair.client, server = pair.server
        let task = Task {
            await callError { () async throws(DBusError) in
                try await TestService.call(client, server, "Never", timeout: .seconds(10))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let (result, elapsed) = await measure { () async -> DBusError? in
            task.cancel()
            return await task.value
        }
        #expect(result == .cancelled)
        #expect(elapsed < .seconds(2))
    }

    @Test("closing the connection fails pending calls with disconnected, and later calls too")
    func closeFailsPendingCalls() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let client = pair.client, server = pair.server
        let task = Task {
            await callError { () async throws(DBusError) in
                try await TestService.call(client, server, "Never", timeout: .seconds(10))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        client.close()
        #expect(await task.value == .disconnected)
        #expect(!client.isConnected)
        await #expect(throws: DBusError.disconnected) { _ = try await TestService.call(client, server, "Echo") }
        #expect(throws: DBusError.disconnected) {
            try client.send(destination: server.uniqueName, path: TestService.path, interface: nil, member: "Echo")
        }
        client.close()  // idempotent
    }

    @Test("a bus that goes away disconnects its connections")
    func busGoesAway() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let client = pair.client, server = pair.server
        let task = Task {
            await callError { () async throws(DBusError) in
                try await TestService.call(client, server, "Never", timeout: .seconds(10))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        pair.bus.stop()
        #expect(await task.value == .disconnected)
        _ = await eventually(timeout: .seconds(1)) { !client.isConnected }
        #expect(!client.isConnected)
    }

    @Test("unknown objects, interfaces and methods give the standard D-Bus errors", arguments: [
        ("/nowhere", "org.pwrecord.Test", "Echo", "org.freedesktop.DBus.Error.UnknownObject"),
        ("/org/pwrecord/Test", "org.pwrecord.Missing", "Echo", "org.freedesktop.DBus.Error.UnknownInterface"),
        ("/org/pwrecord/Test", "org.pwrecord.Test", "Missing", "org.freedesktop.DBus.Error.UnknownMethod"),
    ])
    func unknownTargets(path: String, interface: String, member: String, errorName: String) async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect {
            _ = try await pair.client.call(destination: pair.server.uniqueName, path: DBusObjectPath(path),
                                           interface: interface, member: member)
        } throws: { error in
            guard case .remote(let name, _)? = error as? DBusError else { return false }
            return name == errorName
        }
    }

    @Test("a body of the wrong signature is refused with InvalidArgs before reaching the handler")
    func wrongSignature() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect {
            _ = try await TestService.call(pair.client, pair.server, "Fail", [.uint32(1)])
        } throws: { error in
            guard case .remote(let name, let message)? = error as? DBusError else { return false }
            return name == "org.freedesktop.DBus.Error.InvalidArgs" && message.contains("takes 's', got 'u'")
        }
    }

    @Test("a handler's reply of the wrong signature becomes an error reply, not a wrong answer")
    func wrongReplySignature() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect {
            _ = try await TestService.call(pair.client, pair.server, "WrongReply")
        } throws: { error in
            guard case .remote(let name, let message)? = error as? DBusError else { return false }
            return name == "org.freedesktop.DBus.Error.Failed" && message.contains("declared 'u'")
        }
    }

    @Test("a unix fd sent by the client is readable by the server")
    func fdToServer() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let readEnd = OwnedFileDescriptor(taking: ends[0])
        var byte = UInt8(ascii: "Z")
        #expect(write(ends[1], &byte, 1) == 1)
        close(ends[1])
        let reply = try await TestService.call(pair.client, pair.server, "ReadFD", [.unixFD(readEnd)])
        #expect(reply == [.byte(UInt8(ascii: "Z"))])
    }

    @Test("a unix fd returned by the server is owned by the client and readable")
    func fdFromServer() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let reply = try await TestService.call(pair.client, pair.server, "MakeFD")
        let fd = try reply.argument(0, as: OwnedFileDescriptor.self)
        let raw = try #require(fd.take())
        defer { close(raw) }
        var byte: UInt8 = 0
        #expect(read(raw, &byte, 1) == 1)
        #expect(byte == UInt8(ascii: "Q"))
    }

    @Test("Peer.Ping round trips take well under a millisecond (average printed)")
    func pingLatency() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        try await pair.client.ping(pair.server.uniqueName)  // warm up
        let rounds = 200
        let (_, elapsed) = try await measure {
            for _ in 0..<rounds { try await pair.client.ping(pair.server.uniqueName) }
        }
        let echoBody: [DBusValue] = [.uint32(0), .vardict(["handle_token": .string("t"), "types": .uint32(3)])]
        let (_, echoElapsed) = try await measure {
            for _ in 0..<rounds { _ = try await TestService.call(pair.client, pair.server, "Echo", echoBody) }
        }
        let ping = elapsed / rounds, echo = echoElapsed / rounds
        print("D-Bus round trip over a private bus: Peer.Ping avg \(ping), Echo(ua{sv}) avg \(echo) (\(rounds) calls each)")
        #expect(ping > .zero)
    }

    @Test("a one-way send reaches the handler without a reply")
    func oneWaySend() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let received = AsyncStream<String>.makeStream()
        try pair.server.export([DBusInterface("org.pwrecord.Sink", methods: [
            .replying("Put", in: "s") { call in
                received.continuation.yield((try? call.arguments.argument(0, as: String.self)) ?? "?")
                return []
            },
        ])], at: DBusObjectPath("/sink"))
        try pair.client.send(destination: pair.server.uniqueName, path: DBusObjectPath("/sink"),
                             interface: "org.pwrecord.Sink", member: "Put", body: [.string("hello")])
        #expect(await collect(received.stream, count: 1) == ["hello"])
    }

    @Test("names and bodies that cannot be sent are refused locally")
    func refusedLocally() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        await #expect(throws: DBusError.self) {
            _ = try await pair.client.call(destination: "not a name", path: .root, interface: nil, member: "Ping")
        }
        await #expect {
            _ = try await TestService.call(pair.client, pair.server, "Echo", [.array(element: .uint32, [.string("x")])])
        } throws: { error in
            guard case .invalidValue(let path, _)? = error as? DBusError else { return false }
            return path == [.argument(0), .index(0)]
        }
        #expect(pair.client.isConnected)
    }

    @Test("a message far larger than the socket buffer is written and read completely")
    func largeMessage() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let big = String(repeating: "0123456789abcdef", count: 1 << 17)  // 2 MiB
        let bytes = DBusValue.array(element: .byte, (0..<200_000).map { .byte(UInt8(truncatingIfNeeded: $0)) })
        let reply = try await TestService.call(pair.client, pair.server, "Echo", [.string(big), bytes])
        #expect(reply == [.string(big), bytes])
    }

    @Test("a handler may close its own connection; the caller is told the peer left")
    func closeFromHandler() async throws {
        let pair = try Pair()
        defer { pair.stop() }
        let server = pair.server
        try server.export([DBusInterface("org.pwrecord.Quit", methods: [
            .deferred("Quit") { _ in server.close() },
        ])], at: DBusObjectPath("/quit"))
        let error = await callError { () async throws(DBusError) in
            try await pair.client.call(destination: server.uniqueName, path: DBusObjectPath("/quit"),
                                       interface: "org.pwrecord.Quit", member: "Quit", timeout: .seconds(10))
        }
        guard case .noReply? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(!server.isConnected)
        #expect(pair.client.isConnected)
    }
}
