import Foundation

/// Options of `org.freedesktop.portal.Screenshot.Screenshot`, as a value: `PortalScreenshotOptions().interactive(true)`.
/// Unset options are not sent.
public struct PortalScreenshotOptions: Sendable, Equatable {
    /// `interactive` (b): let the user choose what to capture in the portal's own UI. Unset: the portal's default,
    /// a non-interactive full-screen shot (which 1.16 lets through only once the user allowed screenshots).
    public var interactive: Bool?
    /// `modal` (b): whether the portal's dialog is modal to `parentWindow`. Unset: the portal's default (modal).
    public var modal: Bool?
    /// Delete the file the portal wrote after reading it, when it lies in one of ``temporaryDirectories``
    /// (KDE's and wlroots' backends write to /tmp; GNOME's writes into the user's Pictures folder, which is kept).
    public var removeTemporaryFile: Bool
    /// What counts as temporary: by default `$TMPDIR`, `/tmp` and `/var/tmp`.
    public var temporaryDirectories: [String]

    public init(interactive: Bool? = nil, modal: Bool? = nil, removeTemporaryFile: Bool = true,
                temporaryDirectories: [String] = PortalScreenshotOptions.defaultTemporaryDirectories()) {
        self.interactive = interactive
        self.modal = modal
        self.removeTemporaryFile = removeTemporaryFile
        self.temporaryDirectories = temporaryDirectories
    }

    public func interactive(_ value: Bool?) -> Self { var c = self; c.interactive = value; return c }
    public func modal(_ value: Bool?) -> Self { var c = self; c.modal = value; return c }
    public func removeTemporaryFile(_ value: Bool) -> Self { var c = self; c.removeTemporaryFile = value; return c }
    public func temporaryDirectories(_ value: [String]) -> Self { var c = self; c.temporaryDirectories = value; return c }

    /// `$TMPDIR` (when set and absolute), `/tmp`, `/var/tmp`.
    public static func defaultTemporaryDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var directories = ["/tmp", "/var/tmp"]
        if let tmp = environment["TMPDIR"], tmp.hasPrefix("/") { directories.insert(tmp, at: 0) }
        return directories
    }

    /// The options dict (without `handle_token`).
    public func encoded() -> DBusVardict {
        var dict = DBusVardict()
        dict.set("interactive", interactive)
        dict.set("modal", modal)
        return dict
    }

    /// Deletes the portal's file at `path` when it lies below one of ``temporaryDirectories`` (a file in the
    /// user's own folders is theirs); true when it was deleted. What `take` does after reading, when
    /// ``removeTemporaryFile`` is set; a caller that turned that off calls it once the bytes are safe.
    @discardableResult
    public func removeIfTemporary(_ path: String) -> Bool {
        isTemporary(path) && unlink(path) == 0
    }

    /// True when `path` lies below one of ``temporaryDirectories`` (symbolic links resolved on both sides).
    public func isTemporary(_ path: String) -> Bool {
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return temporaryDirectories.contains { directory in
            let resolved = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
            let prefix = resolved.hasSuffix("/") ? resolved : resolved + "/"
            return file.hasPrefix(prefix)
        }
    }
}
