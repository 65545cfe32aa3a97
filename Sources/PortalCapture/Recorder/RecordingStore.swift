import Foundation

/// Where each app's one kept recording lives (ReplayKit keeps one recording per app for the preview):
/// `$XDG_STATE_HOME/pwrecord/recordings/<app-id>/` (0700), holding the media file (0600) and `info.json`.
///
/// A recording in progress is written to a pending file in the same directory; `keep(_:)` makes it the kept
/// one and removes the previous kept recording, which the recorder does only once the new recording has
/// started successfully.
public struct RecordingStore: Sendable {
    public let root: URL

    public init(root: URL? = nil) {
        self.root = root ?? RecordingStore.defaultRoot()
    }

    static func defaultRoot() -> URL { StateDirectory.url("recordings") }

    /// The app's private directory, created 0700 when missing. The folders above it are made 0700 only when
    /// they are pwrecord's own: the default root and its `pwrecord` state folder always, a root given by the
    /// caller only when this call created it (a store at `~/Videos/Game` must not close `~/Videos`).
    public func directory(for appID: String) throws(RecordingError) -> URL {
        try Self.checkAppID(appID)
        let dir = root.appendingPathComponent(appID)
        let ours = root.standardizedFileURL == Self.defaultRoot().standardizedFileURL
        let above = ours ? [root.deletingLastPathComponent(), root]
            : [root].filter { !FileManager.default.fileExists(atPath: $0.path) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .filePermissions(path: dir.path, reason: "cannot create the recordings directory")
        }
        for url in above + [dir] { _ = chmod(url.path, 0o700) }
        return dir
    }

    /// A new pending media file (created empty, 0600) for a recording about to start.
    public func makePendingFile(for appID: String, fileExtension: String) throws(RecordingError) -> URL {
        let (url, fd) = try createPendingFile(for: appID, fileExtension: fileExtension)
        close(fd)
        return url
    }

    /// `makePendingFile`, with the new file's descriptor left open for the caller (who closes it): the
    /// recording writes through it (`/proc/self/fd/N`), so a folder on the way swapped for a link meanwhile
    /// is never written through.
    func createPendingFile(for appID: String, fileExtension: String) throws(RecordingError) -> (url: URL, fd: Int32) {
        let dir = try directory(for: appID)
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        for attempt in 0..<100 {
            let suffix = attempt == 0 ? "" : "-\(attempt)"
            let url = dir.appendingPathComponent("recording-\(stamp)-\(getpid())\(suffix).\(fileExtension)")
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { return (url, fd) }
            guard errno == EEXIST else { throw .filePermissions(path: url.path, reason: String(cString: strerror(errno))) }
        }
        throw .filePermissions(path: dir.path, reason: "cannot find a free file name")
    }

    /// Makes `pendingFile` the app's kept recording, replacing (deleting) the previous one. The file keeps its
    /// name (a sink may be about to open it): being kept means `info.json` names it.
    public func keep(_ pendingFile: URL, info: RecordingInfo) throws(RecordingError) -> Recording {
        let dir = pendingFile.deletingLastPathComponent()
        let previous = kept(for: info.appID)
        var info = info
        info.fileName = pendingFile.lastPathComponent
        // info.json keeps whole seconds (ISO 8601); keep the in-memory value identical to what is read back.
        info.created = Date(timeIntervalSince1970: info.created.timeIntervalSince1970.rounded(.down))
        try writeInfo(info, in: dir)
        if let previous, previous.file.path != pendingFile.path { unlink(previous.file.path) }
        removeStrays(in: dir, keeping: pendingFile.lastPathComponent)
        return Recording(file: pendingFile, info: info, store: self)
    }

    /// Removes the recordings in `dir` other than `name`: the one kept recording per app is the only one
    /// left (a recording whose info.json was lost or unreadable, or a pending file of a process that died
    /// before its first frame, would otherwise stay on disk, seen by nothing). Called with the app's lock held.
    private func removeStrays(in dir: URL, keeping name: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return }
        for other in names where other != name && other.hasPrefix("recording-") {
            var st = stat()
            let path = dir.appendingPathComponent(other).path
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid() { unlink(path) }
        }
    }

    /// Whether `name` (info.json's `fileName`) can name a recording in the app's folder: a plain file name,
    /// not a path (`../x` would make discard delete a file elsewhere), not hidden, not the info itself.
    static func isRecordingFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && !name.hasPrefix(".") && name != "info.json"
    }

    /// Updates the stored info of the kept recording (e.g. its final duration after stop).
    public func update(_ info: RecordingInfo) throws(RecordingError) {
        try writeInfo(info, in: try directory(for: info.appID))
    }

    /// The app's kept recording, if any.
    public func kept(for appID: String) -> Recording? {
        guard Self.isValidAppID(appID) else { return nil }
        let dir = root.appendingPathComponent(appID)
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("info.json")),
              let info = try? Self.decoder.decode(RecordingInfo.self, from: data),
              Self.isRecordingFileName(info.fileName) else { return nil }
        let file = dir.appendingPathComponent(info.fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return Recording(file: file, info: info, store: self)
    }

    /// Whether a recording of the app that will become its kept one is in progress now (in any process).
    public func isRecording(appID: String) -> Bool {
        Self.isValidAppID(appID) && AppRecordingLock.isHeld(in: root.appendingPathComponent(appID).path)
    }

    /// Deletes the kept recording and its info, and returns whether it did. Nothing is deleted while a
    /// recording of the app is in progress (`AppRecordingLock`: the kept file may be the one being written), nor
    /// when `file` is given and is no longer the kept recording (an old `Recording` value must not delete the
    /// recording that replaced it).
    @discardableResult
    public func discard(appID: String, file: URL? = nil) -> Bool {
        let dir = root.appendingPathComponent(appID)
        // Under the app's lock: a recording cannot start (and replace the kept one) while this looks and deletes.
        guard Self.isValidAppID(appID), FileManager.default.fileExists(atPath: dir.path),
              let lock = try? AppRecordingLock.acquire(in: dir.path) else { return false }
        defer { lock.release() }
        guard let kept = kept(for: appID) else { return false }
        if let file, file.standardizedFileURL.path != kept.file.standardizedFileURL.path { return false }
        removeKept(kept)
        return true
    }

    /// Deletes `kept` and the info naming it, with no questions: for the recording that holds the app's lock.
    func removeKept(_ kept: Recording) {
        unlink(kept.file.path)
        unlink(kept.file.deletingLastPathComponent().appendingPathComponent("info.json").path)
    }

    /// Takes the app's recording lock (see `AppRecordingLock`), creating the app's folder.
    func lock(appID: String) throws(RecordingError) -> AppRecordingLock {
        try AppRecordingLock.acquire(in: try directory(for: appID).path)
    }

    /// Removes a pending file (a recording that never started).
    public func removePending(_ url: URL) { unlink(url.path) }

    private func writeInfo(_ info: RecordingInfo, in dir: URL) throws(RecordingError) {
        let url = dir.appendingPathComponent("info.json")
        let tmp = dir.appendingPathComponent(".info.json.\(getpid())")
        let data: Data
        do { data = try Self.encoder.encode(info) } catch {
            throw .failed(reason: "cannot encode recording info: \(error)")
        }
        // A name of our own, never an existing file or link (O_EXCL | O_NOFOLLOW): the folder is private, but
        // what is written there is checked, not assumed.
        unlink(tmp.path)
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileCopy.storageError(errno, path: url.path) }
        do {
            try FileCopy.writeAll(data, to: fd, path: url.path)
        } catch {
            close(fd)
            unlink(tmp.path)
            throw error
        }
        let synced = fsync(fd) == 0 || errno == EINVAL
        let syncError = errno
        close(fd)
        guard synced, rename(tmp.path, url.path) == 0 else {
            let e = synced ? errno : syncError
            unlink(tmp.path)
            throw FileCopy.storageError(e, path: url.path)
        }
    }

    /// `invalidParameter` naming `appID` unless it is a valid app id.
    static func checkAppID(_ appID: String) throws(RecordingError) {
        guard isValidAppID(appID) else { throw .invalidParameter("app id '\(appID)' (use letters, digits, '.', '_' and '-')") }
    }

    /// An app id names a folder: letters, digits, '.', '_' and '-', not empty, not starting with '.'.
    public static func isValidAppID(_ id: String) -> Bool {
        !id.isEmpty && !id.hasPrefix(".") && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        e.dateEncodingStrategy = .iso8601
        return e
    }()

    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }()
}
