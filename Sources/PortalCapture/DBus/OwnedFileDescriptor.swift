import Glibc
import Synchronization

/// A file descriptor this object owns and closes in `deinit`: the Swift side of a D-Bus `h`
/// (`DBUS_TYPE_UNIX_FD`) value, e.g. the PipeWire remote returned by
/// `org.freedesktop.portal.ScreenCast.OpenPipeWireRemote`.
///
/// Ownership rules at the libdbus boundary:
/// - receiving: `dbus_message_iter_get_basic` on an `h` returns a NEW duplicate that the caller owns; the decoder
///   wraps it here at once, so it is closed even if nobody looks at it.
/// - sending: `dbus_message_iter_append_basic` duplicates the fd, so this object keeps its own.
/// - handing away: ``take()`` gives up ownership, e.g. to `pw_context_connect_fd`, which closes it itself.
///
/// It is a `final class` rather than a `~Copyable` struct because it travels inside ``DBusValue``, which is
/// copyable. Thread safety: the descriptor number is kept under a `Mutex`, so `take()` and `close()` may race
/// safely; exactly one of them gets the descriptor.
public final class OwnedFileDescriptor: Sendable, Equatable, CustomStringConvertible {
    private let state: Mutex<Int32>

    /// Takes ownership of `fd` (which must be open; it is closed in `deinit` unless taken).
    public init(taking fd: Int32) {
        state = Mutex(fd)
    }

    /// Owns a duplicate (`fcntl(F_DUPFD_CLOEXEC)`) of `fd`; the caller keeps `fd`.
    public convenience init(duplicating fd: Int32) throws(DBusError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .system(function: "fcntl(F_DUPFD_CLOEXEC)", errno: errno) }
        self.init(taking: copy)
    }

    deinit { close() }

    /// The descriptor, still owned by this object; `nil` once taken or closed. Do not close it yourself.
    public var rawValue: Int32? {
        state.withLock { $0 >= 0 ? $0 : nil }
    }

    /// Hands the descriptor to the caller, who must close it (or pass it to something that will). Returns `nil`
    /// when it was already taken or closed.
    public func take() -> Int32? {
        state.withLock { fd in
            defer { fd = -1 }
            return fd >= 0 ? fd : nil
        }
    }

    /// Closes the descriptor now (idempotent).
    public func close() {
        if let fd = take() { _ = Glibc.close(fd) }
    }

    /// A new owner of a duplicate of this descriptor.
    public func duplicate() throws(DBusError) -> OwnedFileDescriptor {
        guard let fd = rawValue else { throw .invalidArgument("the file descriptor was already taken or closed") }
        return try OwnedFileDescriptor(duplicating: fd)
    }

    /// Two owners are equal when they are the same object, or both are open and refer to the same file
    /// (same `st_dev` and `st_ino`), as a duplicate passed through D-Bus does.
    public static func == (lhs: OwnedFileDescriptor, rhs: OwnedFileDescriptor) -> Bool {
        if lhs === rhs { return true }
        guard let a = lhs.fileIdentity, let b = rhs.fileIdentity else { return false }
        return a == b
    }

    private var fileIdentity: [UInt64]? {
        state.withLock { fd in
            guard fd >= 0 else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return nil }
            return [UInt64(info.st_dev), UInt64(info.st_ino)]
        }
    }

    public var description: String {
        rawValue.map { "fd \($0)" } ?? "fd (taken)"
    }
}
