import Foundation

/// What `startRecording` checks before anyone is asked for consent, so nobody is asked for nothing: the
/// policy (recording now, microphone, sinks, output place), the output path, and free space.
struct PreflightCheck {
    var appID: String
    var options: RecordingOptions
    var keepsFile: Bool
    var configuration: ScreenRecorderConfiguration
    var decision: PolicyDecision

    func run() throws(RecordingError) {
        guard decision.isAvailable else {
            throw .disabled(reason: decision.reasons.map(\.description).joined(separator: "; "))
        }
        if options.microphone && !decision.microphoneAllowed {
            throw .disabled(reason: "the policy does not allow recording the microphone; record without it")
        }
        let sinkIDs = (keepsFile ? ["encoder"] : []) + options.sinks.map { spec in
            String(spec.prefix { $0 != ":" })
        }
        if let denied = sinkIDs.first(where: { !decision.allowsSink($0) }) {
            throw .disabled(reason: "the policy does not allow the '\(denied)' sink (allowed: \(decision.allowedSinks.map { $0.sorted().joined(separator: ", ") } ?? "any"))")
        }
        if let output = options.output {
            try checkOutput(output)
        }
        if keepsFile {
            let dir = try configuration.store.directory(for: appID)
            if let free = Self.freeBytes(dir.path), free < configuration.minimumFreeBytes {
                throw .insufficientStorage(path: dir.path)
            }
        }
    }

    private func checkOutput(_ output: URL) throws(RecordingError) {
        let dir = output.deletingLastPathComponent().path
        guard decision.allowsOutput(output.path) else {
            throw .disabled(reason: "the policy does not allow saving recordings in \(dir) (allowed: \(decision.allowedOutputDirs?.joined(separator: ", ") ?? "anywhere"))")
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw .filePermissions(path: output.path, reason: "the folder \(dir) does not exist")
        }
        guard access(dir, W_OK) == 0 else {
            throw .filePermissions(path: output.path, reason: "the folder \(dir) is not writable")
        }
        if !options.overwrite && FileManager.default.fileExists(atPath: output.path) {
            throw .filePermissions(path: output.path, reason: "the file exists (use --force to replace it)")
        }
        if let free = Self.freeBytes(dir), free < configuration.minimumFreeBytes {
            throw .insufficientStorage(path: output.path)
        }
    }

    static func freeBytes(_ path: String) -> Int64? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }
}
