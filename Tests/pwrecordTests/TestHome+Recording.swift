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
    /// A recording with `-o output` has begun once the file beside it (`NAME.partial-XXXXXX.EXT`, created
    /// before consent) has the container's header, which the encoder writes at the first frame.
    func waitForRecording(to output: URL, timeout: Double = 30) async -> Bool {
        let dir = output.deletingLastPathComponent()
        let prefix = output.deletingPathExtension().lastPathComponent + ".partial-"
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let partials = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix(prefix) }
            for name in partials {
                let size = (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue
                if (size ?? 0) > 0 { return true }
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

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
