import Foundation

/// A finished recording: the app's kept recording (ReplayKit's preview, in the private store), or one that
/// went straight to the output its options named (`RecordingOptions.output`). Save it somewhere, discard it,
/// open it, or read its info.
public struct Recording: Sendable, Equatable {
    /// The media file: inside the private store when kept, else at the output.
    public let file: URL
    public let info: RecordingInfo
    let store: RecordingStore
    /// Whether this is the app's kept recording (in the store) rather than a file at an output of its own.
    public internal(set) var isKept = true

    public static func == (a: Recording, b: Recording) -> Bool { a.file == b.file && a.info == b.info && a.isKept == b.isKept }

    /// Size of the media file in bytes.
    public var size: Int64 {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Copies the recording to `destination` atomically (a new private file beside it, then a link or rename;
    /// see `PrivateFile`): a reader never sees a partial file, and nothing planted at a guessable name is ever
    /// written through. Without `overwrite`, an existing destination is an error and stays untouched. The copy
    /// is 0600, like the original. The recording itself stays. A kept recording still being recorded (in this
    /// process or another) is refused: a copy now would end mid-stream, without its index.
    public func save(to destination: URL, overwrite: Bool = false) throws(RecordingError) {
        if isKept && info.inProgress == true && store.isRecording(appID: info.appID) {
            throw .failed(reason: "\(file.path) is still being recorded; stop the recording, then save it "
                + "(a copy now would have no index and end mid-stream)")
        }
        try Self.checkDestination(destination, overwrite: overwrite, fileExtension: file.pathExtension)
        let (tmp, fd) = try PrivateFile.createBeside(destination)
        var placed = false
        defer { if !placed { unlink(tmp.path) } }
        do {
            // A real copy, never a hard link: writing to the saved file must not change the kept recording.
            try FileCopy.copy(from: file.path, into: fd, displayPath: destination.path)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        try PrivateFile.moveIntoPlace(tmp, at: destination, overwrite: overwrite)
        placed = true
    }

    /// What `save` refuses before writing anything: an existing destination without `overwrite`, a folder, a
    /// missing or unwritable parent (`filePermissions`, with a file name of `fileExtension` as the example).
    static func checkDestination(_ destination: URL, overwrite: Bool, fileExtension: String) throws(RecordingError) {
        let example = "recording." + (fileExtension.isEmpty ? "mkv" : fileExtension)
        if let reason = PrivateFile.destinationProblem(destination, replacing: overwrite, example: example) {
            throw .filePermissions(path: destination.path, reason: reason)
        }
    }

    /// `save(to:overwrite:)` where the policy's `output-dirs` allow it (the same rule as a recording's output);
    /// `disabled` naming the allowed folders otherwise.
    public func save(to destination: URL, overwrite: Bool = false, allowedBy decision: PolicyDecision) throws(RecordingError) {
        try OutputPlace.check(placing: destination.path, decision)
        try save(to: destination, overwrite: overwrite)
    }

    /// Deletes the recording: the kept one from the store, or the file at its output; returns whether it did.
    /// A kept recording is deleted only while it is still the app's kept one and no recording of the app is in
    /// progress (see `RecordingStore.discard(appID:file:)`).
    @discardableResult
    public func discard() -> Bool {
        if isKept { return store.discard(appID: info.appID, file: file) }
        return unlink(file.path) == 0
    }

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
