import Foundation

/// What `startRecording` checks before anyone is asked for consent, so nobody is asked for nothing: the
/// policy (recording now, microphone, system audio, sinks, output place), the output path, and free space.
struct PreflightCheck {
    var appID: String
    var options: RecordingOptions
    var keepsFile: Bool
    /// Samples go to the app's own handler (`startCapture`): the policy names that sink `callback`.
    var deliversToHandler = false
    var configuration: ScreenRecorderConfiguration
    var decision: PolicyDecision

    /// The sink id the policy's `sinks` gives to an app's own handler (docs/policy.md).
    static let handlerSinkID = "callback"

    func run() throws(RecordingError) {
        // The app id names the kept recording's folder and the portal session; checked even when nothing is kept.
        try RecordingStore.checkAppID(appID)
        try checkPolicy()
        if let output = options.output {
            try checkOutput(output)
        }
        // A recording with an output is written beside it (checked above); only a kept one uses the store.
        if keepsFile && options.output == nil {
            let dir = try configuration.store.directory(for: appID)
            if let free = Self.freeBytes(dir.path), free < configuration.minimumFreeBytes {
                throw .insufficientStorage(path: dir.path)
            }
        }
    }

    /// What the policy says of this recording, without touching any file: checked before consent, and again
    /// whenever the policy changes while it runs (a tightened policy stops it).
    func checkPolicy() throws(RecordingError) {
        try OutputPlace.checkAvailable(decision)
        if options.microphone && !decision.microphoneAllowed {
            throw .disabled(reason: "the policy does not allow recording the microphone (microphone = deny); record without it")
        }
        if options.systemAudio && !decision.systemAudioAllowed {
            throw .disabled(reason: "the policy does not allow recording system audio (system-audio = deny); record without it")
        }
        let sinkIDs = (keepsFile ? ["encoder"] : []) + (deliversToHandler ? [Self.handlerSinkID] : []) + options.sinks.map { spec in
            String(spec.prefix { $0 != ":" })
        }
        if let denied = sinkIDs.first(where: { !decision.allowsSink($0) }) {
            throw .disabled(reason: "the policy does not allow the '\(denied)' sink (allowed: \(decision.allowedSinks.map { $0.sorted().joined(separator: ", ") } ?? "any"))")
        }
        if let output = options.output { try OutputPlace.check(placing: output.path, decision) }
        try checkSinkOutputs()
        if keepsFile && options.output == nil {
            try checkStoreLocation()
        }
    }

    private func checkOutput(_ output: URL) throws(RecordingError) {
        if let reason = PrivateFile.destinationProblem(output, replacing: options.overwrite,
                                                       example: "recording.\(options.container)") {
            throw .filePermissions(path: output.path, reason: reason)
        }
        let dir = output.deletingLastPathComponent().path
        if let free = Self.freeBytes(dir), free < configuration.minimumFreeBytes {
            throw .insufficientStorage(path: output.path)
        }
    }

    /// The kept recording is written below the store's root, the user's private state: under `output-dirs`
    /// that root must be the default one (below the passwd home, which no environment variable moves) or an
    /// allowed folder, so that `XDG_STATE_HOME` or `HOME` cannot carry recordings somewhere the policy forbids.
    /// The app's own folder is what is checked: it is where the recording is written, and a link of the user's
    /// there would carry it out as well as one at the root.
    private func checkStoreLocation() throws(RecordingError) {
        let folder = configuration.store.root.path + "/" + appID
        guard !Self.storeLocationAllowed(root: folder,
                                         standard: StateDirectory.privateDefault("recordings").map { $0.path + "/" + appID },
                                         decision) else { return }
        throw .disabled(reason: "the policy allows recordings only in \(OutputPlace.allowed(decision)), and the kept "
            + "recordings' folder \(folder) (moved there by XDG_STATE_HOME, HOME or a link of yours) is outside them; "
            + "unset those (or remove the link), or record with -o into an allowed folder")
    }

    /// Whether kept recordings may be written below `root`: anywhere without `output-dirs`; else at the
    /// `standard` place, if the user's own links do not move it (only root's are followed, as for the allowed
    /// folders: `ln -s /elsewhere ~/.local/state/pwrecord/recordings` would carry recordings out), or inside an
    /// allowed folder.
    static func storeLocationAllowed(root: String, standard: String?, _ decision: PolicyDecision) -> Bool {
        guard decision.allowedOutputDirs != nil else { return true }
        if let standard, let asWritten = PolicyPath.resolve(standard, relativeTo: "/", linksOwnedByRootOnly: true),
           PolicyPath.resolve(standard) == asWritten, PolicyPath.resolve(root) == asWritten { return true }
        return decision.allowsOutput(root + "/recording")
    }

    /// Files sinks are told to write (`output=`, the raw sink's `audio=`) are outputs too: under `output-dirs`
    /// they must lie in an allowed folder, and standard output (`-`), which the shell may send anywhere, is refused.
    private func checkSinkOutputs() throws(RecordingError) {
        guard decision.allowedOutputDirs != nil else { return }
        for text in options.sinks {
            guard let spec = try? SinkSpec(parsing: text) else { continue }   // a bad spec fails later, with its own error
            for key in OutputPlace.pathKeys(of: spec, in: configuration.sinks) {
                guard let path = spec[key] else { continue }
                if path == "-" {
                    throw .disabled(reason: "the policy allows recordings only in \(OutputPlace.allowed(decision)), and "
                        + "standard output can go anywhere ('\(spec.id):\(key)=-'); write to a file in an allowed folder")
                }
                guard decision.allowsOutput(path) else {
                    throw .disabled(reason: OutputPlace.refusal(placing: path, decision)
                        + " ('\(spec.id):\(key)=\(path)')")
                }
            }
        }
    }

    static func freeBytes(_ path: String) -> Int64? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }
}
