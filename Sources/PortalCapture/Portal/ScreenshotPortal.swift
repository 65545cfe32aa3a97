import Foundation

/// The client of `org.freedesktop.portal.Screenshot` (on `org.freedesktop.portal.Desktop`,
/// `/org/freedesktop/portal/desktop`).
///
/// The portal writes the picture to a file and answers with its URI. The rule for that file: it is read and handed
/// over as bytes; it is then **deleted only when it lies in a temporary directory** (`$TMPDIR`, `/tmp`, `/var/tmp`;
/// KDE's and wlroots' backends write there), never when it lies elsewhere (GNOME's backend saves into the user's
/// Pictures folder, which is the user's file). ``PortalScreenshotOptions/removeTemporaryFile`` turns removal off.
public final class ScreenshotPortal: PortalInterfaceClient {
    /// `org.freedesktop.portal.Screenshot`
    public static let interface = "org.freedesktop.portal.Screenshot"

    public let connection: DBusConnection
    public let timeouts: PortalTimeouts

    public init(connection: DBusConnection, timeouts: PortalTimeouts = .standard) {
        self.connection = connection
        self.timeouts = timeouts
    }

    /// The interface's `version` property (xdg-desktop-portal 1.16 says 2). Throws
    /// ``PortalError/interfaceMissing(interface:)`` when the frontend has no Screenshot (1.16 exports it only when
    /// some backend implements `org.freedesktop.impl.portal.Access`).
    public func version() async throws(PortalError) -> UInt32 {
        let properties = try await ScreenCastPortal.readProperties(connection, interface: Self.interface,
                                                                    timeout: timeouts.call)
        do {
            return try properties.value("version", as: UInt32.self)
        } catch {
            throw PortalError.malformed(error, method: "Properties.GetAll(\(Self.interface))", at: "properties")
        }
    }

    /// `org.freedesktop.portal.Screenshot.Screenshot(s parent_window, a{sv} options)`, then the file named by the
    /// `uri` result, read (and removed when temporary, see the type's documentation). Waits up to the consent
    /// timeout. Response 1 is ``PortalError/cancelled``; 2 ``PortalError/ended`` (1.16 also answers 2 when the user
    /// denied screenshots in the Access dialog, now or earlier).
    /// The eight bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The largest screenshot file read (a 16384x16384 RGBA image stored uncompressed is 1 GiB).
    static let largestImage: Int64 = 1 << 30

    /// The portal's file, which must be a regular file no larger than `largestImage`: a URI naming a FIFO, a
    /// device (`/dev/zero`) or a huge file would hang the read or exhaust memory. Opened without blocking
    /// (a FIFO's open waits for a writer otherwise), checked on the descriptor, then read.
    static func readImage(_ path: String) throws(PortalError) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .fileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "it is not a regular file (a screenshot is a PNG file)")
        }
        guard Int64(st.st_size) <= largestImage else {
            throw .fileUnreadable(path: path, reason: "it is \(st.st_size) bytes, more than a screenshot can be (\(largestImage))")
        }
        var data = Data(count: Int(st.st_size))
        var done = 0
        while done < data.count {
            let n = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .fileUnreadable(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }   // it shrank meanwhile: what is there
            done += n
        }
        data.count = done
        return data
    }

    public func take(_ options: PortalScreenshotOptions = PortalScreenshotOptions(), parentWindow: String = "")
        async throws(PortalError) -> PortalScreenshot {
        let method = "Screenshot"
        let request = PortalRequest(connection: connection, interface: Self.interface, method: method,
                                    timeout: timeouts.consent)
        let results = try await request.perform([.string(parentWindow)], options: options.encoded())
        let uri: String
        do {
            uri = try results.value("uri", as: String.self)
        } catch {
            throw PortalError.malformed(error, method: method, at: "results")
        }
        guard let url = URL(string: uri), url.isFileURL else {
            throw .malformedReply(method: method, key: "results / key 'uri'", reason: "'\(uri)' is not a file URI")
        }
        if let host = url.host, !host.isEmpty, host != "localhost" {
            throw .malformedReply(method: method, key: "results / key 'uri'", reason: "'\(uri)' names a file on another host")
        }
        guard !url.path.isEmpty else {
            throw .malformedReply(method: method, key: "results / key 'uri'",
                                  reason: "'\(uri)' names no path, or one whose escapes are not UTF-8 (which cannot be opened here)")
        }
        let path = url.path
        let data = try Self.readImage(path)
        // Every backend writes a PNG; anything else (an empty file, another format) is not handed on as one,
        // and its file is kept for a look.
        guard data.starts(with: Self.pngSignature) else {
            throw .fileUnreadable(path: path, reason: data.isEmpty ? "the file is empty, not a PNG image"
                                  : "it is not a PNG image (\(data.count) bytes without PNG's signature)")
        }
        let removed = options.removeTemporaryFile && options.removeIfTemporary(path)
        return PortalScreenshot(url: url, data: data, removedFile: removed)
    }
}
