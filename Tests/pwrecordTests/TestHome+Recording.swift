import Foundation

extension TestHome {
    /// The user's policy file, `$XDG_CONFIG_HOME/pwrecord/policy.conf`.
    var userPolicyFile: URL { root.appendingPathComponent("config/pwrecord/policy.conf") }

    func writeUserPolicy(_ text: String) throws { try write(Data(text.utf8), to: userPolicyFile) }

    /// `$XDG_STATE_HOME/pwrecord`: nothing may appear here before a recording starts.
    var stateFolder: URL { root.appendingPathComponent("state/pwrecord") }

    /// The folder of `appID`'s kept recording.
    func recordings(appID: String = "pwrecord") -> URL { stateFolder.appendingPathComponent("recordings/\(appID)") }

    /// Waits until a recording has begun: its kept recording's `info.json` appears once the first frame has
    /// arrived. False when it did not within `timeout` seconds.
    func waitForRecordingToBegin(appID: String = "pwrecord", timeout: Double = 30) async -> Bool {
        let info = recordings(appID: appID).appendingPathComponent("info.json").path
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: info) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Every file and folder below `folder`, relative to it, sorted; empty when it does not exist.
    func contents(of folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }
}
