import Foundation
import PortalCapture
import Plugins

/// `pwrecord record`: asks through the portal, records until the duration elapses or Ctrl-C / SIGTERM, and
/// either saves to `-o` or keeps the recording (ReplayKit's preview) for `pwrecord last`.
enum RecordCommand {
    /// Every option turned into typed values; nothing has happened yet.
    struct Plan {
        var options: RecordingOptions
        var appID: String
        var output: URL?
        var force: Bool
    }

    /// `sinks`, when given, is what `--sink` values are checked against (their ids and option names), so an
    /// unknown sink is a usage error naming `--sink` before anything happens.
    static func plan(_ parsed: ParsedCommand, config: UserConfig, sinks: SinkRegistry? = nil) throws(CommandLineError) -> Plan {
        var options = RecordingOptions()
        if parsed.value("output")?.isEmpty == true {
            throw CommandLineError(reason: .invalidValue(option: "--output", value: "", reason: "give a file name, e.g. talk.mkv"),
                                   commandPath: parsed.path)
        }
        if parsed.value("output") == "-" {
            throw CommandLineError(reason: .invalidValue(option: "--output", value: "-", reason:
                "record writes a file it finalizes and then names; to stream to standard output give a sink that "
                + "writes there, e.g. --sink encoder:output=- (Matroska) or --sink raw:output=- (Y4M)"), commandPath: parsed.path)
        }
        let output = parsed.value("output").map { config.outputURL(for: $0) }
        if let d = try parsed.value("duration", ValueParsers.duration) { options.maxDuration = d }
        options.microphone = parsed.flag("mic")
        options.systemAudio = parsed.flag("system-audio")
        let source = try parsed.value("source") { s throws(ValueError) in try ValueParsers.choice(s, PwrecordCommands.sourceKinds) } ?? "monitor"
        options.sources = source == "window" ? .window : .monitor
        let cursor = try parsed.value("cursor") { s throws(ValueError) in try ValueParsers.choice(s, PwrecordCommands.cursorModes) } ?? "embedded"
        options.cursor = ["hidden": .hidden, "embedded": .embedded, "metadata": .metadata][cursor]!
        options.fps = try parsed.value("fps") { s throws(ValueError) in try ValueParsers.integer(s, in: 1...240) } ?? 30
        if parsed.flag("cfr") && parsed.flag("vfr") {
            throw CommandLineError(reason: .conflicting("--cfr", "--vfr"), commandPath: parsed.path)
        }
        options.frameRateMode = parsed.flag("cfr") ? .constant : .variable
        let codec = try parsed.value("codec") { s throws(ValueError) in try ValueParsers.choice(s, PwrecordCommands.codecs) } ?? config.codec
        var container = try parsed.value("container") { s throws(ValueError) in try ValueParsers.choice(s, PwrecordCommands.containers) }
        if container == nil, let ext = output?.pathExtension.lowercased(), !ext.isEmpty {
            guard PwrecordCommands.containers.contains(ext) else {
                throw CommandLineError(reason: .invalidValue(option: "--output", value: output!.path,
                                                             reason: "the extension must be .mkv, .mp4 or .webm (or give --container)"),
                                       commandPath: parsed.path)
            }
            container = ext
        }
        // The container's precedence is the command's (--container, then -o's extension, then the config);
        // left unset, RecordingOptions picks mkv, and a codec fitting the container (vp9 in webm).
        if let container = container ?? config.container { options.container = container }
        if let codec { options.codec = codec }
        try checkCodecFitsContainer(options, parsed: parsed, config: config)
        if let crop = try parsed.value("crop", ValueParsers.rect) { options.crop = PixelRect(x: crop.x, y: crop.y, width: crop.width, height: crop.height) }
        options.masks = try parsed.all("mask", ValueParsers.rect).map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        options.sinks = try parsed.all("sink") { s throws(ValueError) in
            do throws(SinkError) {
                let spec = try SinkSpec(parsing: s)
                if let sinks {
                    let factory = try sinks.factory(for: spec.id)
                    _ = try SinkOptions(sink: spec.id, given: Dictionary(spec.options.map { ($0.key, $0.value) }) { $1 },
                                        declared: factory.options)
                }
                return spec.description
            } catch {
                throw ValueError(error.description)
            }
        }
        options.output = output
        options.overwrite = parsed.flag("force")
        do throws(RecordingError) { try options.validate() } catch {
            // What the options say together (an -o extension against --container, say), in the options' words.
            let reason = if case .invalidParameter(let what) = error { what } else { error.description }
            throw CommandLineError(reason: .invalidCombination(reason), commandPath: parsed.path)
        }
        let appID = try parsed.value("app-id", ValueParsers.appID) ?? "pwrecord"
        return Plan(options: options, appID: appID, output: output, force: parsed.flag("force"))
    }

    /// The codec and container may come from options, the -o extension, the config file or defaults: a pair
    /// the container cannot hold is refused before anything happens, saying where each came from.
    static func checkCodecFitsContainer(_ options: RecordingOptions, parsed: ParsedCommand, config: UserConfig) throws(CommandLineError) {
        typealias Container = EncoderSink.Options.Container
        guard let container = Container(rawValue: options.container),
              let codec = EncoderSink.Options.VideoCodec(rawValue: options.codec), !container.accepts(codec) else { return }
        let codecFrom = parsed.value("codec") != nil ? "--codec" : config.origins["codec"] ?? "the default"
        let containerFrom = if parsed.value("container") != nil {
            "--container"
        } else if let output = parsed.value("output"), !URL(fileURLWithPath: output).pathExtension.isEmpty {
            "the -o file's extension"
        } else {
            config.origins["container"] ?? "the default"
        }
        let fits = Container.allCases.filter { $0.accepts(codec) }.map(\.rawValue).joined(separator: " or ")
        let codecs = EncoderSink.Options.VideoCodec.allCases.filter { container.accepts($0) }.map(\.rawValue).joined(separator: " or ")
        throw CommandLineError(reason: .invalidCombination("\(codec.rawValue) (from \(codecFrom)) cannot go into \(container.rawValue) "
                                                           + "(from \(containerFrom)); use a \(fits) file, or the codec \(codecs)"),
                               commandPath: parsed.path)
    }

    static func run(_ parsed: ParsedCommand, config: UserConfig, console: Console) async throws(CommandLineError) -> ExitCode {
        var console = console
        // A sink streaming to standard output (`raw:output=-`) owns it: this command's results go to stderr.
        var sinks = SinkRegistry.standard()
        console.resultsToStandardError = parsed.all("sink").contains { text in
            guard let spec = try? SinkSpec(parsing: text) else { return false }
            let standardOutput: Set<String> = ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
            return OutputPlace.pathKeys(of: spec, in: sinks).contains { spec[$0].map(standardOutput.contains) ?? false }
        }
        // Every option but the sinks' ids and options is checked before plugins load (their code runs) or the
        // policy is read: a bad value is a usage error whatever the plugins and policy say.
        _ = try plan(parsed, config: config)
        if let refused = loadPlugins(into: &sinks, for: parsed, console: console) { return refused }
        let plan = try plan(parsed, config: config, sinks: sinks)
        EncoderSink.setLibraryLogLevel(.error)
        // This process is ours: libx264's frames in 4 kB pages, not rounded up to 2 MB huge pages (about 7 MB
        // less at 1080p; bench/README.md, recording-memory). A kernel that refuses changes nothing.
        EncoderSink.disableTransparentHugePages()
        var configuration = ScreenRecorderConfiguration(provider: Providers.screenCast(), sinks: sinks)
        // Also ours to choose: the delivery thread's wake-ups leave PipeWire's data thread alone (threads started
        // from it inherit the policy, which in this process harms nothing; docs/pipewire.md).
        configuration.deliveryThreadScheduling = .batch
        let recorder = ScreenRecorder(appID: plan.appID, configuration: configuration)
        // Before anything that waits: a signal from now on is handled (a SIGUSR1 used to kill the process here).
        let stops = StopSignals()
        defer { stops.cancel() }
        let availability = await recorder.refreshAvailability()
        if let exit = ExitCode(unavailable: availability) {
            console.error("recording is " + availability.description,
                          hint: exit == .disabledByPolicy ? "see 'pwrecord policy explain'" : "see 'pwrecord status'")
            return exit
        }
        let progress = ProgressLine(console: console)
        let events = recorder.events
        // Ctrl-C while the consent dialog is open gives up asking (the start is cancelled, the dialog closed)
        // rather than waiting for the user's answer or the portal's timeout.
        let start = Task { () async -> RecordingError? in
            do throws(RecordingError) { try await recorder.startRecording(plan.options) } catch { return error }
            return nil
        }
        stops.onStop { start.cancel() }
        if let error = await start.value {
            // A cancelled start reads as declined: the user said no, with Ctrl-C instead of the dialog.
            if stops.stopRequested, error == .userDeclined {
                console.error("stopped before the recording started (while waiting for consent); nothing was recorded")
                return .declined
            }
            console.error(error.description)
            return ExitCode(error)
        }
        stops.onStop(nil)
        stops.enablePauses()
        console.note("recording\(limitNote(plan.options.maxDuration, policy: recorder.policyDecision.maxDuration)); "
                     + "Ctrl-C stops, SIGUSR1 pauses, SIGUSR2 resumes")
        let notification = DesktopNotification.show(summary: "Recording the screen", body: "pwrecord is recording; Ctrl-C in its terminal stops it.")

        // Wait for a stop signal or the recording ending on its own (duration, interruption). Both children
        // iterate their streams directly, so cancelling the group ends the other one.
        let winner = await withTaskGroup(of: RecordingError??.self) { group in
            group.addTask {
                for await signal in stops.signals {
                    switch signal {
                    case .stop: return nil
                    // A pause while paused, or a resume while recording, changes nothing and says nothing.
                    case .pause where !recorder.isPaused:
                        try? recorder.pauseRecording(); progress.setPaused(true); progress.note("paused")
                    case .resume where recorder.isPaused:
                        try? recorder.resumeRecording(); progress.setPaused(false); progress.note("resumed")
                    case .pause, .resume: break
                    }
                }
                return nil
            }
            group.addTask {
                for await event in events {
                    switch event {
                    case .progress(let p): progress.show(p)
                    case .stopped(let error): return .some(error)
                    default: break
                    }
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        var endedError: RecordingError?
        var endedByItself = false
        if let ended = winner {
            endedByItself = true
            endedError = ended
        }
        progress.finish()
        var recording: Recording?
        if endedByItself {
            recording = recorder.lastRecording
        } else {
            do {
                recording = try await recorder.stopRecording()
                endedError = recorder.lastRecordingError   // finalizing can fail too (a full disk, the output taken)
            } catch .attemptToStopNonRecording {
                // It ended on its own (its duration, an interruption) and finished just before the stop signal
                // was read: its own outcome stands, not "no recording is running".
                endedByItself = true
                endedError = recorder.lastRecordingError
                recording = recorder.lastRecording
            } catch {
                endedError = error
                recording = recorder.lastRecording
            }
        }
        await notification?.close()
        guard let recording else {
            console.error(endedError?.description ?? "nothing was recorded")
            return endedError.map(ExitCode.init) ?? .failure
        }
        var exit = endedError.map(ExitCode.init) ?? .success
        if let error = endedError { console.error(error.description) }
        if endedByItself, endedError == nil, let note = Self.policyLimitNote(asked: plan.options.maxDuration,
                                                                            policy: recorder.policyDecision.maxDuration) {
            console.note(note)
        }
        for warning in recording.info.warnings ?? [] { console.note("warning: \(warning)") }
        if let output = plan.output {
            // Written beside the output and put there when it ended; if that last step failed, the error above
            // says where the file is.
            if recording.file.path == output.path {
                console.out("saved \(output.path) (\(summary(recording)))")
            } else if exit == .success {
                exit = .failure   // not put in place: the error above says why and where the file is
            }
        } else {
            console.out("kept \(recording.file.path) (\(summary(recording)))")
            let app = plan.appID == "pwrecord" ? "" : " --app-id \(plan.appID)"
            console.out("save it with 'pwrecord last save\(app) FILE', discard it with 'pwrecord last discard\(app)'")
        }
        return exit
    }

    /// " for N s", with the policy named when its max-duration is what stops the recording.
    static func limitNote(_ asked: Double?, policy: Duration?) -> String {
        let policySeconds = policy.map { $0 / .seconds(1) }
        switch (asked, policySeconds) {
        case (let a?, let p?) where p < a: return String(format: " for %.1f s (the policy's max-duration; %.1f s asked)", p, a)
        case (nil, let p?): return String(format: " for at most %.1f s (the policy's max-duration)", p)
        case (let a?, _): return String(format: " for %.1f s", a)
        case (nil, nil): return ""
        }
    }

    /// What to say when a recording ended on its own without an error: if the policy's max-duration is
    /// shorter than what was asked (or nothing was asked), that limit is what stopped it.
    static func policyLimitNote(asked: Double?, policy: Duration?) -> String? {
        guard let policy else { return nil }
        let seconds = policy / .seconds(1)
        if let asked, asked <= seconds { return nil }
        return String(format: "stopped at the policy's max-duration (%.1f s); see 'pwrecord policy explain'", seconds)
    }

    static func summary(_ r: Recording) -> String {
        var parts = [String(format: "%.1f s", r.info.duration), ByteCount.format(r.size)]
        if let v = r.info.videoFormat { parts.append("\(v.width)x\(v.height)") }
        parts.append("\(r.info.videoFrames) frames, \(r.info.droppedFrames) dropped")
        return parts.joined(separator: ", ")
    }
}
