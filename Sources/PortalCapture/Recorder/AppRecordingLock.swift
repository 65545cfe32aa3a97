import Glibc

/// One kept recording in progress per app, across recorders and processes: an exclusive `flock` on
/// `<store>/<app-id>/.lock`, held from before the pending file is made until the recording is finalized.
///
/// Without it, two recorders with the same app id (two `ScreenRecorder`s in one app, or an app and the
/// `pwrecord` CLI, whose app id is the default one) each replaced the other's kept recording while it was
/// being written, and `discardRecording()` deleted the file being recorded. `flock` locks belong to an open
/// file description, so a second open in the same process conflicts too, and the kernel drops the lock when a
/// process dies (a killed recorder never leaves it stuck). Recordings with an output of their own
/// (`RecordingOptions.output`) and captures to a handler touch no kept recording and take no lock.
final class AppRecordingLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    /// Takes the app's lock in `directory` (the app's folder in the store), or throws
    /// `attemptToStartInRecordingState` when another recording of the app holds it.
    static func acquire(in directory: String) throws(RecordingError) -> AppRecordingLock {
        let path = directory + "/.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .filePermissions(path: path, reason: String(cString: strerror(errno))) }
        // `isHeld` and `discard` take the lock for a moment to look: a start meeting one of them tries again
        // (for up to 50 ms), so only a recording that really runs makes it fail.
        var err: Int32 = 0
        for attempt in 0..<10 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return AppRecordingLock(fd: fd) }
            err = errno
            guard err == EWOULDBLOCK || err == EINTR else { break }
            if attempt < 9 { usleep(5_000) }
        }
        Glibc.close(fd)
        if err == EWOULDBLOCK { throw .attemptToStartInRecordingState }
        throw .filePermissions(path: path, reason: String(cString: strerror(err)))
    }

    /// Lets go of the lock (the descriptor closes when the lock goes). Idempotent.
    func release() { flock(fd, LOCK_UN) }

    /// Whether a recording of the app holds the lock in `directory` now (this process's own included).
    static func isHeld(in directory: String) -> Bool {
        let fd = open(directory + "/.lock", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }
}
