import Foundation
import Glibc
@testable import PortalCapture

/// A private `dbus-daemon` started by a test, with its own minimal configuration (no service activation unless
/// the test gives a `serviceDirectory` of its own, so nothing real is ever started on it) and socket in a fresh
/// temporary directory. ``stop()`` kills exactly this daemon and removes the directory.
final class PrivateBus: @unchecked Sendable {
    static let daemonPath = "/usr/bin/dbus-daemon"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: daemonPath) }

    let directory: URL
    let address: String
    private let process: Process

    init(serviceDirectory: URL? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pwrecord-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus</listen>
          <auth>EXTERNAL</auth>
          \(serviceDirectory.map { "<servicedir>\($0.path)</servicedir>" } ?? "")
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.daemonPath)
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // --print-address writes the address and a newline once the socket listens.
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.readSomeRetryingInterrupts()
            guard !chunk.isEmpty else { break }
            text.append(chunk)
        }
        let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("unix:") else {
            kill(process.processIdentifier, SIGKILL)
            throw DBusError.connectionFailed(address: directory.path, name: "dbus-daemon", message: "printed '\(line)'")
        }
        address = line
    }

    /// A new connection to this bus.
    func connect() throws -> DBusConnection { try DBusConnection(address: address) }

    /// SIGKILL, because the daemon inherits the test process's blocked signal mask and so never sees SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
