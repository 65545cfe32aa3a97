import Foundation

/// Fields of a process's `/proc/PID/status`, for tests that check what a process set for itself.
public enum ProcessStatus {
    /// The value of `name` (e.g. `THP_enabled`) in `/proc/<process>/status`, trimmed; nil when the file cannot
    /// be read or has no such field. `process` is a pid, or `self`.
    public static func field(_ name: String, of process: String = "self") -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return nil }
        let prefix = name + ":"
        return status.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
    }
}
