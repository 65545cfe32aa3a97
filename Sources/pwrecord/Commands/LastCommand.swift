import Foundation
import PortalCapture

/// `pwrecord last [info|save DEST|discard|open]`: the kept recording (ReplayKit's preview).
enum LastCommand {
    static func run(_ parsed: ParsedCommand, config: UserConfig = UserConfig(), console: Console, appID: String = "pwrecord",
                    store: RecordingStore = RecordingStore(), policy: PolicyLocations = PolicyLocations()) -> ExitCode {
        let action = parsed.path.count > 2 ? parsed.path[2] : "info"
        guard let recording = store.kept(for: appID) else {
            console.error("there is no kept recording", hint: "record one with 'pwrecord record'")
            return .failure
        }
        switch action {
        case "save":
            let dest = config.outputURL(for: parsed.positionals[0])
            // A copy of a file still being written has no index and ends mid-cluster: not a saved recording.
            if State(recording, store: store, appID: appID) == .recording {
                console.error("cannot save \(recording.file.path) yet: it is being recorded",
                              hint: "stop that recording first (Ctrl-C in its terminal), then save it")
                return .failure
            }
            // Saving copies the file as it is: a name promising another container would mislead every player.
            let kept = recording.file.pathExtension.lowercased(), asked = dest.pathExtension.lowercased()
            if !asked.isEmpty, asked != kept {
                console.error("cannot save the kept recording as \(dest.lastPathComponent): it is a .\(kept) file, and saving does not convert it",
                              hint: "give a name ending in .\(kept)")
                return .usage
            }
            do throws(RecordingError) {
                // The policy's output-dirs govern saving as they govern recording with -o.
                let decision = try PolicyInForce.decision(appID: appID, locations: policy, doing: "saving")
                try recording.save(to: dest, overwrite: parsed.flag("force"), allowedBy: decision)
            } catch {
                console.error(error.description)
                return ExitCode(error)
            }
            console.out("saved \(dest.path)")
        case "discard":
            guard recording.discard() else {
                console.error("cannot discard \(recording.file.path): it is being recorded",
                              hint: "stop that recording first (Ctrl-C in its terminal), then discard it")
                return .failure
            }
            console.out("discarded \(recording.file.path)")
        case "open":
            // `Recording.open()` starts xdg-open through env(1) and does not wait, so a missing xdg-open would
            // go unnoticed: look for it first.
            guard ExecutableSearch.find("xdg-open") != nil else {
                console.error("cannot open \(recording.file.path): xdg-open is not installed",
                              hint: "install xdg-utils, or open the file with a player of your choice")
                return .failure
            }
            do { try recording.open() } catch {
                console.error(error.description)
                return .failure
            }
            console.out("opening \(recording.file.path) with xdg-open")
        default:
            let state = State(recording, store: store, appID: appID)
            console.out(parsed.flag("json") ? json(recording, state) : text(recording, state, appID: appID))
        }
        return .success
    }

    /// Whether the kept recording is finished, still being recorded, or was left unfinished by a process that
    /// died (its info still says in progress, and no recording of the app runs).
    enum State: String {
        case finished, recording, unfinished

        init(_ r: Recording, store: RecordingStore, appID: String) {
            guard r.info.inProgress == true else { self = .finished; return }
            self = store.isRecording(appID: appID) ? .recording : .unfinished
        }
    }

    static func text(_ r: Recording, _ state: State = .finished, appID: String = "pwrecord") -> String {
        var lines = ["file: \(r.file.path)",
                     "created: \(ISO8601DateFormatter().string(from: r.info.created))",
                     String(format: "duration: %.2f s", r.info.duration),
                     "size: \(ByteCount.format(r.size))"]
        if let v = r.info.videoFormat { lines.append("video: \(v.width)x\(v.height), \(r.info.videoFrames) frames, \(r.info.droppedFrames) dropped") }
        if let a = r.info.audioFormat { lines.append("audio: \(a.sampleRate) Hz, \(a.channels) channels") }
        if let e = r.info.endedWithError { lines.append("ended with: \(e)") }
        for w in r.info.warnings ?? [] { lines.append("warning: \(w)") }
        switch state {
        case .finished: break
        case .recording:
            lines.append("state: being recorded now (the figures above are from its last update, every 2 s)")
        case .unfinished:
            lines.append("warning: this recording was not finished: the process recording it ended without finalizing "
                         + "it (killed?); it plays up to about where it stopped, and the figures above are from its "
                         + "last update")
        }
        // The commands as they must be typed to reach this app's recording, not pwrecord's own.
        let app = appID == "pwrecord" ? "" : " --app-id \(appID)"
        lines.append("save it with 'pwrecord last save\(app) FILE', discard it with 'pwrecord last discard\(app)'")
        return lines.joined(separator: "\n")
    }

    static func json(_ r: Recording, _ state: State = .finished) -> String {
        var object: [String: Any] = [
            "file": r.file.path, "created": ISO8601DateFormatter().string(from: r.info.created),
            "duration": r.info.duration, "size": r.size, "videoFrames": r.info.videoFrames,
            "droppedFrames": r.info.droppedFrames,
        ]
        if let v = r.info.videoFormat { object["video"] = ["width": v.width, "height": v.height, "format": v.pixelFormat.rawValue] }
        if let a = r.info.audioFormat { object["audio"] = ["sampleRate": a.sampleRate, "channels": a.channels] }
        if let e = r.info.endedWithError { object["endedWithError"] = e }
        if let w = r.info.warnings { object["warnings"] = w }
        object["state"] = state.rawValue
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Human-readable sizes.
enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
