/// Why the recording policy cannot be read, or why it makes recording unavailable.
///
/// Every problem with a policy file fails closed: a decision made from a policy with problems is unavailable,
/// and carries these errors as its reasons. Content errors print as `file:line: what is wrong`, file errors as
/// `file: what is wrong`; each says how to fix it where an administrator can.
public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: Content of a file (file:line)

    /// A line that is neither a comment, a `[section]` header nor `key = value`.
    case malformedLine(file: String, line: Int, text: String)
    /// A `[...]` header that is not one of the known section forms.
    case badSectionHeader(file: String, line: Int, header: String, reason: String)
    /// The same section header twice in one file.
    case duplicateSection(file: String, line: Int, section: String, firstLine: Int)
    /// A `key = value` line before the first section header.
    case keyOutsideSection(file: String, line: Int, key: String)
    /// A key this version of pwrecord does not know.
    case unknownKey(file: String, line: Int, key: String)
    /// The same key twice in one section.
    case duplicateKey(file: String, line: Int, key: String, section: String, firstLine: Int)
    /// A value that is not one of the accepted forms; `expected` says which are.
    case badValue(file: String, line: Int, key: String, value: String, expected: String)
    /// A duration (`max-duration`, `consent-memory`) that cannot be read.
    case badDuration(file: String, line: Int, key: String, value: String, reason: String)
    /// An `hours` value that cannot be read.
    case badHours(file: String, line: Int, value: String, reason: String)

    // MARK: Files (file)

    /// The file or directory exists but cannot be opened or read; `reason` is `strerror(errno)` or similar.
    case unreadable(path: String, reason: String)
    /// A path that should be a regular file is something else (a directory, a FIFO, a device).
    case notRegularFile(path: String)
    /// A path that should be a directory is something else.
    case notDirectory(path: String)
    /// A system file or directory not owned by the trusted owner (root).
    case untrustedOwner(path: String, owner: UInt32, expected: UInt32)
    /// A system file or directory that group or others may write (`mode & 0o022 != 0`).
    case writableByOthers(path: String, mode: UInt32)
    /// A file that is not valid UTF-8.
    case invalidEncoding(path: String)
    /// A file or directory that pwrecord may not open (`EACCES`): policy files must be readable by every user,
    /// since everyone's recording is decided by them.
    case permissionDenied(path: String, isDirectory: Bool)
    /// A system file or directory reached through the symlink `link`, whose target, or a directory on the way to
    /// it (`path`), is not owned by the trusted owner (root): that owner could swap the policy.
    case untrustedLinkTarget(link: String, target: String, path: String, owner: UInt32, expected: UInt32)
    /// A system file or directory reached through the symlink `link`, whose target, or a directory on the way to
    /// it (`path`), group or others may write (a directory: without the sticky bit).
    case writableLinkTarget(link: String, target: String, path: String, mode: UInt32)

    // MARK: Decisions

    /// A `recording = deny` line that applies to this user and app.
    case recordingDenied(PolicySourceLine)
    /// The current time is outside the allowed `hours`; `allowed` is the effective window, `lines` set it.
    case outsideHours(allowed: PolicyHours, lines: [PolicySourceLine])
    /// The policy limits `hours`, but `variables` (e.g. `ICU_TIMEZONE_FILES_DIR`) redirect the time-zone
    /// rules the hours would be read with, so they cannot be checked; `lines` set the hours.
    case timeZoneRulesOverridden(variables: [String], lines: [PolicySourceLine])

    // MARK: Environment

    /// The user (by name or uid) has no passwd entry, so the policy cannot tell who is recording.
    case unknownUser(String)
    /// The user's groups could not be read from the group database (an NSS source failing, an entry too
    /// large), so a rule naming a group could be missed.
    case groupLookupFailed(user: String, reason: String)
    /// Watching the policy files failed; `function` is the failing C call (e.g. `inotify_init1`).
    case watchFailed(function: String, errno: Int32)

    /// `file:line [section]` of each line, comma-separated: where a decision's values were set.
    static func places(_ lines: [PolicySourceLine]) -> String {
        lines.map { "\($0.file):\($0.line) [\($0.section)]" }.joined(separator: ", ")
    }

    static func ownerName(_ uid: UInt32) -> String { uid == 0 ? "root" : "\(uid)" }
    static func notOwner(_ uid: UInt32) -> String { uid == 0 ? "not by root" : "not by uid \(uid)" }

    public var description: String {
        switch self {
        case .malformedLine(let file, let line, let text):
            "\(file):\(line): expected 'key = value' or a [section] header, found '\(text)'"
        case .badSectionHeader(let file, let line, let header, let reason):
            "\(file):\(line): bad section header '\(header)': \(reason)"
        case .duplicateSection(let file, let line, let section, let firstLine):
            "\(file):\(line): duplicate section [\(section)] (first at line \(firstLine)); merge the two"
        case .keyOutsideSection(let file, let line, let key):
            "\(file):\(line): key '\(key)' is outside any section; put it under [defaults] or another section"
        case .unknownKey(let file, let line, let key):
            "\(file):\(line): unknown key '\(key)'; known keys: \(PolicyKey.allCases.map(\.rawValue).joined(separator: ", "))"
        case .duplicateKey(let file, let line, let key, let section, let firstLine):
            "\(file):\(line): duplicate key '\(key)' in [\(section)] (first set at line \(firstLine))"
        case .badValue(let file, let line, let key, let value, let expected):
            "\(file):\(line): bad value '\(value)' for '\(key)': expected \(expected)"
        case .badDuration(let file, let line, let key, let value, let reason):
            "\(file):\(line): bad duration '\(value)' for '\(key)': \(reason)"
        case .badHours(let file, let line, let value, let reason):
            "\(file):\(line): bad hours '\(value)': \(reason)"
        case .unreadable(let path, let reason):
            "\(path): cannot read: \(reason); recording stays unavailable until it can be read"
        case .notRegularFile(let path):
            "\(path): not a regular file; replace it with a policy file or remove it"
        case .notDirectory(let path):
            "\(path): not a directory; remove it or make it a directory"
        case .untrustedOwner(let path, let owner, let expected):
            expected == 0
                ? "\(path): owned by uid \(owner), not by root; run 'chown root \(path)'"
                : "\(path): owned by uid \(owner), not by uid \(expected); run 'chown \(expected) \(path)'"
        case .writableByOthers(let path, let mode):
            "\(path): writable by group or others (mode 0\(String(mode & 0o7777, radix: 8))); run 'chmod go-w \(path)'"
        case .invalidEncoding(let path):
            "\(path): not valid UTF-8; save it as UTF-8 text"
        case .permissionDenied(let path, let isDirectory):
            "\(path): cannot read: Permission denied; make it readable by everyone with "
                + "'chmod \(isDirectory ? "755" : "644") \(path)' (recording stays unavailable until it can be read)"
        case .untrustedLinkTarget(let link, let target, let path, let owner, let expected):
            path == target
                ? "\(link): links to \(target), owned by uid \(owner), \(Self.notOwner(expected)); "
                    + "run 'chown \(Self.ownerName(expected)) \(target)'"
                : "\(link): links to \(target) through \(path), owned by uid \(owner), \(Self.notOwner(expected)), "
                    + "who could swap the policy file; run 'chown \(Self.ownerName(expected)) \(path)' "
                    + "or move the file into a directory only \(Self.ownerName(expected)) can write"
        case .writableLinkTarget(let link, let target, let path, let mode):
            path == target
                ? "\(link): links to \(target), writable by group or others (mode 0\(String(mode & 0o7777, radix: 8))); "
                    + "run 'chmod go-w \(target)'"
                : "\(link): links to \(target) through \(path), writable by group or others without the sticky bit "
                    + "(mode 0\(String(mode & 0o7777, radix: 8))), who could swap the policy file; run 'chmod go-w \(path)' "
                    + "or move the file into a directory only root can write"
        case .recordingDenied(let source):
            "\(source.file):\(source.line): recording is denied by [\(source.section)]; ask your administrator"
        case .outsideHours(let allowed, let lines):
            "outside the allowed recording hours (\(allowed), set at "
                + Self.places(lines)
                + "); try again within those hours or ask your administrator"
        case .timeZoneRulesOverridden(let variables, let lines):
            "the allowed recording hours (set at "
                + Self.places(lines)
                + ") cannot be checked: \(variables.joined(separator: " and ")) "
                + (variables.count == 1 ? "is" : "are")
                + " set, which would load time-zone rules from another folder; unset "
                + (variables.count == 1 ? "it" : "them") + " and try again"
        case .unknownUser(let user):
            "no passwd entry for user \(user); the recording policy cannot tell who is recording"
        case .groupLookupFailed(let user, let reason):
            "cannot read the groups of user \(user): \(reason); the recording policy cannot tell which rules apply "
                + "(check the group database, e.g. 'getent group', and nsswitch.conf)"
        case .watchFailed(let function, let errno):
            "cannot watch the policy files: \(function) failed (errno \(errno)); "
                + "raise fs.inotify.max_user_instances or max_user_watches if they are exhausted"
        }
    }
}
