/// Why a sink failed. Each case says what happened and, where a user can act, how to fix it.
public enum SinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The disk (or quota) is full; what was written so far has been finalized.
    case insufficientStorage(path: String)
    /// The output cannot be created or written.
    case filePermissions(path: String, reason: String)
    /// An option the sink does not know, or a bad value (`encoder:crf=abc`).
    case invalidOption(sink: String, option: String, reason: String)
    /// The sink cannot take this input (pixel format, codec not built into FFmpeg...).
    case unsupported(sink: String, reason: String)
    /// A sink id nobody registered.
    case unknownSink(id: String, known: [String])
    /// The policy's allowed-sinks list excludes this sink; or it names it, but the sink would come from
    /// `userPlugin`, a plugin file the user (not root) installed, which may not stand in for a sink the
    /// administrator allowed.
    case notAllowed(id: String, userPlugin: String? = nil)
    /// A plugin file that was refused or failed to load.
    case pluginRejected(path: String, reason: String)
    /// An isolated sink (a plugin's, `SinkIsolation`) did not take its queued samples and close within
    /// `after`; the recording ended without it, and its thread may still be blocked in the sink's code.
    case abandoned(sink: String, pluginPath: String?, after: Duration)
    /// Anything else, with the failing call (e.g. `avcodec_open2`) and its message.
    case failed(sink: String, reason: String)

    public var description: String {
        switch self {
        case .insufficientStorage(let path):
            "no space left while writing \(path); free some space or choose another output directory"
        case .filePermissions(let path, let reason):
            "cannot write \(path): \(reason); choose a writable output path"
        case .invalidOption(let sink, let option, let reason):
            "sink '\(sink)': option '\(option)': \(reason)"
        case .unsupported(let sink, let reason):
            "sink '\(sink)': \(reason)"
        case .unknownSink(let id, let known):
            "unknown sink '\(id)'; known sinks: \(known.joined(separator: ", ")) (see `pwrecord sinks`)"
        case .notAllowed(let id, nil):
            "sink '\(id)' is not allowed by the recording policy; ask your administrator or use an allowed sink"
        case .notAllowed(let id, let plugin?):
            "sink '\(id)' is allowed by the recording policy only as installed by root, and this one is your own "
                + "plugin \(plugin); ask your administrator to install it in /usr/lib/pwrecord/plugins"
        case .pluginRejected(let path, let reason):
            "plugin \(path) was not loaded: \(reason)"
        case .abandoned(let sink, let pluginPath, let after):
            (pluginPath.map { "plugin sink '\(sink)' (\($0))" } ?? "sink '\(sink)'")
                + " did not return within \(Self.seconds(after)); it was abandoned (what the other sinks recorded is kept)"
        case .failed(let sink, let reason):
            "sink '\(sink)' failed: \(reason)"
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration / .milliseconds(1)
        return milliseconds.rounded() == milliseconds && Int(milliseconds) % 1000 == 0
            ? "\(Int(milliseconds) / 1000) s" : "\(milliseconds / 1000) s"
    }
}
