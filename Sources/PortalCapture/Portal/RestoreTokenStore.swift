import Foundation

/// Remembered consent: the portal's `restore_token` per app id, with the time it was issued and the selection
/// it was granted for (`ScreenCastOptions.consentSelection`), kept in
/// `$XDG_STATE_HOME/pwrecord/restore-tokens/<app-id>` (directory 0700, file 0600; three lines: time, token,
/// selection). A token older than the consent memory is not handed out (ReplayKit remembers a choice for a few
/// minutes; the policy's `consent-memory` says how long here).
public struct RestoreTokenStore: Sendable {
    public struct Entry: Sendable, Equatable {
        public var token: String
        public var issued: Date
        /// What the token was granted for; empty in a file written before selections were kept (such a token
        /// matches no selection, so it is never sent).
        public var selection: String = ""
    }

    public let directory: URL

    /// `directory` defaults to `$XDG_STATE_HOME/pwrecord/restore-tokens` (`~/.local/state/...`).
    public init(directory: URL? = nil) {
        self.directory = directory ?? RestoreTokenStore.defaultDirectory()
    }

    static func defaultDirectory() -> URL { StateDirectory.url("restore-tokens") }

    /// The token for `appID` if it is younger than `maxAge`; an older one is deleted and nil returned.
    public func token(for appID: String, maxAge: TimeInterval, now: Date = Date()) -> String? {
        entry(for: appID).flatMap { fresh($0, for: appID, maxAge: maxAge, now: now) }?.token
    }

    /// `entry` (read for `appID`) if it is younger than `maxAge` (and not from the future); else it is deleted
    /// and nil returned.
    func fresh(_ entry: Entry, for appID: String, maxAge: TimeInterval, now: Date) -> Entry? {
        if now.timeIntervalSince(entry.issued) > maxAge || entry.issued > now.addingTimeInterval(60) {
            remove(for: appID)
            return nil
        }
        return entry
    }

    /// The stored entry, whatever its age.
    public func entry(for appID: String) -> Entry? {
        guard let url = fileURL(for: appID), let data = try? Data(contentsOf: url),
              let text = String(data: data, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        guard lines.count >= 2, let seconds = Double(lines[0]) else { return nil }
        return Entry(token: String(lines[1]), issued: Date(timeIntervalSince1970: seconds),
                     selection: lines.count >= 3 ? String(lines[2]) : "")
    }

    /// Why a token could not be stored.
    public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
        /// App ids become file names: only `[A-Za-z0-9._-]`, not starting with `.`.
        case invalidAppID(String)
        /// A token must be one non-empty line.
        case invalidToken
        /// Creating the directory or writing the file failed.
        case writeFailed(path: String, reason: String)

        public var description: String {
            switch self {
            case .invalidAppID(let id):
                "'\(id)' cannot be used as an app id for remembered consent (use letters, digits, '.', '_' and '-')"
            case .invalidToken:
                "a restore token must be one non-empty line"
            case .writeFailed(let path, let reason):
                "cannot store remembered consent in \(path): \(reason); check the permissions of that directory"
            }
        }
    }

    /// Stores `token` for `appID`, granted for `selection`, issued `now`. Written atomically (a private temporary
    /// file renamed over the old one) with mode 0600 in a 0700 directory.
    public func store(_ token: String, for appID: String, selection: String = "", now: Date = Date()) throws(StoreError) {
        guard let url = fileURL(for: appID) else { throw .invalidAppID(appID) }
        guard !token.isEmpty, !token.contains("\n"), !selection.contains("\n") else { throw .invalidToken }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .writeFailed(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        guard chmod(directory.path, 0o700) == 0 else {
            throw .writeFailed(path: directory.path, reason: Self.failure("chmod"))
        }
        let tmp = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let body = "\(now.timeIntervalSince1970)\n\(token)\n\(selection)\n"
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .writeFailed(path: tmp.path, reason: Self.failure("open")) }
        let written = body.utf8CString.withUnsafeBufferPointer { buf in
            write(fd, buf.baseAddress, buf.count - 1) == buf.count - 1 ? nil : Self.failure("write")
        }
        close(fd)
        if let written {
            unlink(tmp.path)
            throw .writeFailed(path: tmp.path, reason: written)
        }
        guard rename(tmp.path, url.path) == 0 else {
            let reason = Self.failure("rename")
            unlink(tmp.path)
            throw .writeFailed(path: url.path, reason: reason)
        }
    }

    /// `function: strerror(errno)` for the last failed system call.
    private static func failure(_ function: String) -> String {
        "\(function): \(String(cString: strerror(errno)))"
    }

    /// Forgets the token for `appID` (refused or unusable tokens are dropped this way).
    public func remove(for appID: String) {
        if let url = fileURL(for: appID) { unlink(url.path) }
    }

    /// App ids become file names; anything but `[A-Za-z0-9._-]` is refused so an id cannot escape the directory.
    private func fileURL(for appID: String) -> URL? {
        guard !appID.isEmpty, !appID.hasPrefix("."),
              appID.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) })
        else { return nil }
        return directory.appendingPathComponent(appID)
    }
}
