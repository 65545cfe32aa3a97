import Foundation
import Plugins

extension TemporaryDirectory {
    /// A folder made here with exactly `mode` (mkdir's mode is cut by the umask); ours, so trusted by owner.
    func folder(_ name: String, mode: mode_t = 0o755) -> String {
        let dir = file(name)
        mkdir(dir, mode)
        chmod(dir, mode)
        return dir
    }
}

extension PluginLoader.Scan {
    /// The one refusal of a scan that refused exactly one thing.
    var onlyRejection: (path: String, reason: String)? {
        guard rejected.count == 1, case .pluginRejected(let path, let reason) = rejected[0] else { return nil }
        return (path, reason)
    }
}
