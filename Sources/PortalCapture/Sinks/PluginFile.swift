#if canImport(Glibc)
import Glibc
#endif

/// A plugin file opened once by ``PluginTrust/openFile(_:)`` and checked through its descriptor. It is loaded
/// through that descriptor too, as `/proc/self/fd/N`, so the inode that was checked is the inode that runs:
/// `dlopen` of the file's path would look the path up again, after the check.
///
/// Closed on deinit unless the library was loaded (``keepOpen()``).
struct PluginFile: ~Copyable {
    let descriptor: Int32

    /// The name `dlopen` is given for this file: `N` in `folder` (`/proc/self/fd`). Throws, rather than fall
    /// back to the file's path, unless that name leads to the very inode that is open (it does not when /proc
    /// is not mounted). Refusals name `subject`.
    func loaderPath(in folder: String = "/proc/self/fd", for subject: String) throws(SinkError) -> String {
        let name = folder + "/\(descriptor)"
        var opened = Glibc.stat(), named = Glibc.stat()
        guard fstat(descriptor, &opened) == 0 else {
            throw .pluginRejected(path: subject, reason: "cannot stat the opened file: \(PluginTrust.errnoText())")
        }
        guard stat(name, &named) == 0 else {
            throw .pluginRejected(path: subject, reason:
                "cannot reach the checked file as \(name) (\(PluginTrust.errnoText())); plugins are only loaded "
                + "through the descriptor that was checked, which needs /proc: mount it (`mount -t proc proc /proc`)")
        }
        guard named.st_dev == opened.st_dev && named.st_ino == opened.st_ino else {
            throw .pluginRejected(path: subject, reason:
                "\(name) is not the checked file; plugins are only loaded through the descriptor that was checked, "
                + "which needs the real /proc: mount it (`mount -t proc proc /proc`)")
        }
        return name
    }

    /// Leaves the descriptor open for the life of the process, once the library is loaded through it. The
    /// library is never unloaded, and glibc knows it by the name `/proc/self/fd/N`: were N closed and taken by
    /// the next plugin, `dlopen` of the same name would return this library instead of opening that one.
    consuming func keepOpen() { discard self }

    deinit { close(descriptor) }
}
