import Foundation

/// The app's kept recording (ReplayKit's preview): save it somewhere, discard it, open it, or read its info.
public struct Recording: Sendable, Equatable {
    /// The media file inside the private store.
    public let file: URL
    public let info: RecordingInfo
    let store: RecordingStore

    public static func == (a: Recording, b: Recording) -> Bool { a.file == b.file && a.info == b.info }

    /// Size of the media file in bytes.
    public var size: Int64 {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Copies the recording to `destination` atomically (a temporary file in the destination directory, then a
    /// link or rename): a reader never sees a partial file. Without `overwrite`, an existing destination is
    /// an error and stays untouched. The copy is 0600, like the original. The kept recording stays.
    public func save(to destination: URL, overwrite: Bool = false) throws(RecordingError) {
        let dir = destination.deletingLastPathComponent()
        if !overwrite, FileManager.default.fileExists(atPath: destination.path) {
            throw .filePermissions(path: destination.path, reason: "the file exists (use --force to replace it)")
        }
        let tmp = dir.appendingPathComponent(".\(destination.lastPathComponent).pwrecord-\(getpid())")
        unlink(tmp.path)
        defer { unlink(tmp.path) }
        // A real copy, never a hard link: writing to the saved file must not change the kept recording.
        try FileCopy.copy(from: file.path, to: tmp.path, displayPath: destination.path)
        if overwrite {
            guard rename(tmp.path, destination.path) == 0 else {
                throw .filePermissions(path: destination.path, reason: String(cString: strerror(errno)))
            }
        } else if link(tmp.path, destination.path) != 0 {
            let err = errno
            throw .filePermissions(path: destination.path, reason: err == EEXIST
                ? "the file exists (use --force to replace it)" : String(cString: strerror(err)))
        }
    }

    /// Deletes the kept recording.
    public func discard() { store.discard(appID: info.appID) }

    /// Opens the recording with the desktop's default player (`xdg-open`).
    public func open() throws(RecordingError) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["xdg-open", file.path]
        do { try p.run() } catch {
            throw .unsupported("cannot run xdg-open (install xdg-utils): \(error)")
        }
    }
}
