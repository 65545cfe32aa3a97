import Foundation
import Glibc
import Synchronization
@testable import PortalCapture

/// The object the bus tests export: one interface with a method per behaviour under test.
enum TestService {
    static let interface = "org.pwrecord.Test"
    static let path = try! DBusObjectPath("/org/pwrecord/Test")

    static var interfaces: [DBusInterface] {
        [DBusInterface(interface, methods: [
            .replying("Echo") { call in call.arguments },
            .replying("Fail", in: "s") { call throws(DBusError) in
                throw .remote(name: "org.freedesktop.portal.Error.InvalidArgument",
                              message: try call.arguments.argument(0, as: String.self))
            },
            .deferred("Later", in: "u", out: "s") { call in
                let ms = (try? call.arguments.argument(0, as: UInt32.self)) ?? 0
                Task {
                    try? await Task.sleep(for: .milliseconds(Int(ms)))
                    try? call.reply([.string("late")])
                }
            },
            .deferred("Never") { _ in },
            .async("Sum", in: "uu", out: "u") { call throws(DBusError) in
                try? await Task.sleep(for: .milliseconds(10))
                return [.uint32(try call.arguments.argument(0, as: UInt32.self) + call.arguments.argument(1, as: UInt32.self))]
            },
            .replying("ReadFD", in: "h", out: "y") { call throws(DBusError) in
                let fd = try call.arguments.argument(0, as: OwnedFileDescriptor.self)
                var byte: UInt8 = 0
                guard read(fd.rawValue!, &byte, 1) == 1 else { throw .system(function: "read", errno: errno) }
                return [.byte(byte)]
            },
            .replying("MakeFD", out: "h") { _ throws(DBusError) in
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw .system(function: "pipe", errno: errno) }
                var byte = UInt8(ascii: "Q")
                _ = write(ends[1], &byte, 1)
                close(ends[1])
                return [.unixFD(OwnedFileDescriptor(taking: ends[0]))]
            },
            .replying("WrongReply", out: "u") { _ in [.string("not a u")] },
        ], properties: [
            .constant("version", .uint32(4)),
            DBusProperty("Name", type: .string) { .string("test service") },
        ], signals: [DBusSignalDeclaration("Changed", signature: "s")])]
    }

    /// A client call to the test object.
    static func call(_ client: DBusConnection, _ server: DBusConnection, _ member: String, _ body: [DBusValue] = [],
                     timeout: Duration = .seconds(5)) async throws(DBusError) -> [DBusValue] {
        try await client.call(destination: server.uniqueName, path: path, interface: interface, member: member,
                              body: body, timeout: timeout)
    }
}

/// Collects `count` elements of an async sequence, or those that arrived when `limit` passes or it ends.
func collect<S: AsyncSequence & Sendable>(_ sequence: S, count: Int, within limit: Duration = .seconds(5)) async -> [S.Element]
    where S.Element: Sendable {
    let got = Collected<S.Element>()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            do {
                for try await element in sequence {
                    let n = got.items.withLock { $0.append(element); return $0.count }
                    if n == count { break }
                }
            } catch {}
        }
        group.addTask { try? await Task.sleep(for: limit) }
        await group.next()
        group.cancelAll()
    }
    return got.items.withLock { $0 }
}

private final class Collected<Element: Sendable>: Sendable {
    let items = Mutex<[Element]>([])
}

/// Elapsed wall time of `body`.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    return (result, clock.now - start)
}

/// The error a call throws, or nil when it succeeds.
func callError(_ body: () async throws(DBusError) -> [DBusValue]) async -> DBusError? {
    do throws(DBusError) {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
