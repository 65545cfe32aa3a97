import Dispatch
import Foundation
import Synchronization

/// One running recording: the portal grant, the capture pipeline, the file, and the timers (progress, max
/// duration). Created by `ScreenRecorder`; ends exactly once.
///
/// The file: without an output in the options, a pending file in the app's private store that becomes the
/// kept recording (replacing the previous one) once the first frame has arrived. With an output, a private
/// file beside it (`PrivateFile`, `NAME.partial-XXXXXX.EXT`) that is put in place when the recording ends,
/// however it ends; the kept recording is not touched.
final class RecordingSession: Sendable {
    let appID: String
    let options: RecordingOptions
    private let configuration: ScreenRecorderConfiguration
    private let grant: any ScreenCastGrant
    private let audioCore: PipeWireCore?
    private let pipeline: CapturePipeline
    /// Serializes policy changes (see `policyChanged`).
    private let policyUpdate = Mutex(())
    /// The file the recording is written to (the kept one, or the partial file beside its output).
    let file: URL?
    /// Where `file` goes when the recording ends (the options' output), or nil for a kept recording.
    let destination: URL?
    /// Whether the recording writes a file (not a capture to a handler only): what the policy's checks ask.
    let keepsFile: Bool
    /// Whether samples also go to the app's handler (`startCapture`): the policy's `callback` sink.
    let deliversToHandler: Bool
    /// The `-o` partial file's descriptor, which the encoder writes through; closed once the sinks are done.
    private let held: HeldDescriptor
    /// For a recording that becomes the app's kept one: held until it is finalized (`AppRecordingLock`).
    private let appLock: AppRecordingLock?
    private let created = Date()
    private let state = Mutex(State())
    /// Told which session ended, so an owner never takes one session's end for another's.
    private let onEnd: @Sendable (RecordingSession, RecordingError?) -> Void

    private struct State {
        var ended = false
        var finished: (recording: Recording?, error: RecordingError?)?
        var kept: Recording?
        /// The format the sinks were opened with (after the crop): what the file holds, unlike the stream's.
        var recordedFormat: VideoFormat?
        var sinkError: RecordingError?
        var tasks: [Task<Void, Never>] = []
        /// The shorter of the options' and the policy's max duration, as the policy is now (it may change).
        var limit: Duration?
        /// The policy's decision as it is now: the output place is checked against it again at the end.
        var decision: PolicyDecision = .unrestricted
        var warnings: [String] = []
    }

    private init(appID: String, options: RecordingOptions, configuration: ScreenRecorderConfiguration,
                 grant: any ScreenCastGrant, audioCore: PipeWireCore?, pipeline: CapturePipeline, file: URL?,
                 destination: URL?, keepsFile: Bool, deliversToHandler: Bool, held: HeldDescriptor,
                 appLock: AppRecordingLock?, onEnd: @escaping @Sendable (RecordingSession, RecordingError?) -> Void) {
        self.appID = appID
        self.options = options
        self.configuration = configuration
        self.grant = grant
        self.audioCore = audioCore
        self.pipeline = pipeline
        self.file = file
        self.destination = destination
        self.keepsFile = keepsFile
        self.deliversToHandler = deliversToHandler
        self.held = held
        self.appLock = appLock
        self.onEnd = onEnd
    }

    /// Checks everything checkable, asks for consent, starts capture and waits for the first frame.
    /// `policyNow` gives the policy's decision as it is after the consent dialog (which may stay open for a
    /// long time): what it no longer allows fails the start before anything is recorded.
    static func start(appID: String, options: RecordingOptions, extraSinks: [any CaptureSink], keepsFile: Bool,
                      configuration: ScreenRecorderConfiguration, decision: PolicyDecision,
                      policyNow: (@Sendable () -> PolicyDecision)? = nil,
                      onEnd: @escaping @Sendable (RecordingSession, RecordingError?) -> Void,
                      onProgress: @escaping @Sendable (RecordingProgress) -> Void) async throws(RecordingError) -> RecordingSession {
        // 1. Everything that needs no one's consent.
        try options.validate()
        let deliversToHandler = !extraSinks.isEmpty
        try PreflightCheck(appID: appID, options: options, keepsFile: keepsFile, deliversToHandler: deliversToHandler,
                           configuration: configuration, decision: decision).run()
        var registry = configuration.sinks
        registry.allowed = decision.allowedSinks.map { .only($0) } ?? .all
        let destination = keepsFile ? options.output : nil
        let file: URL?
        var held: Int32 = -1
        var appLock: AppRecordingLock?
        if !keepsFile {
            file = nil
        } else if let destination {
            let (beside, fd) = try PrivateFile.createBeside(destination)
            file = beside
            held = fd
        } else {
            // Before the pending file: another recording of this app (another recorder, another process) would
            // replace this one's kept file while it is written, and this one theirs.
            appLock = try configuration.store.lock(appID: appID)
            let (pending, fd) = try configuration.store.createPendingFile(for: appID, fileExtension: options.container)
            file = pending
            held = fd
        }
        // The encoder writes through the descriptor made here (`/proc/self/fd/N` reopens that very file), so a
        // name swapped in the folder meanwhile (during the consent dialog, say), or a folder on the way swapped
        // for a link, is never written through.
        let heldPath = held >= 0 && access("/proc/self/fd/\(held)", F_OK) == 0 ? "/proc/self/fd/\(held)" : nil
        let heldFile = HeldDescriptor(held, path: heldPath, shownAs: file?.path)
        var sinks: [any CaptureSink] = []
        do {
            if let file {
                sinks.append(try registry.makeSink(SinkSpec(id: "encoder", options: [
                    ("output", heldPath ?? file.path), ("container", options.container), ("codec", options.codec),
                    ("rate", options.frameRateMode == .constant ? "cfr" : "vfr"), ("fps", String(options.fps)),
                ])))
            }
            for spec in options.sinks { sinks.append(try registry.makeSink(spec)) }
            // What the sinks can check without the stream (their outputs), before anyone is asked.
            let plan = SinkPreflight(audio: options.microphone || options.systemAudio)
            for sink in sinks { try sink.preflight(plan) }
        } catch {
            abandon(sinks, file, configuration.store, heldFile)
            throw RecordingError(error)
        }
        sinks += extraSinks

        // The audio nodes, checked against what the policy allows (`AudioSourceCheck`), before anyone is asked.
        var audioCore: PipeWireCore?
        var audio: (microphone: PipeWireTarget?, systemAudio: PipeWireTarget?) = (nil, nil)
        if options.microphone || options.systemAudio {
            let core: PipeWireCore
            do { core = try PipeWireCore(name: "pwrecord-audio", remote: configuration.pipewireRemote) } catch {
                abandon(sinks, file, configuration.store, heldFile)
                let what = options.microphone ? (options.systemAudio ? "the microphone and system audio" : "the microphone") : "system audio"
                throw .failedToStart(reason: "cannot reach PipeWire for \(what): \(error)")
            }
            audioCore = core
            do throws(RecordingError) {
                let check = AudioSourceCheck()
                if options.microphone {
                    audio.microphone = try await check.target(.microphone, node: options.microphoneNode, core: core, decision: decision)
                }
                if options.systemAudio {
                    audio.systemAudio = try await check.target(.systemAudio, node: options.systemAudioNode, core: core, decision: decision)
                }
            } catch {
                core.close()
                abandon(sinks, file, configuration.store, heldFile)
                throw error
            }
        }

        // 2. Consent.
        let grant: any ScreenCastGrant
        do {
            grant = try await configuration.provider.startCast(ScreenCastRequest(
                appID: appID, sources: options.sources, multiple: options.multiple, cursor: options.cursor,
                consentMemory: decision.consentMemory))
        } catch {
            audioCore?.close()
            abandon(sinks, file, configuration.store, heldFile)
            throw error
        }

        // The policy may have changed while the dialog was open (an admin's edit, the allowed hours ending):
        // what it no longer allows fails the start here, before a frame is recorded and before the previous
        // kept recording is replaced.
        var decision = decision
        if let now = policyNow?(), now != decision {
            do throws(RecordingError) {
                try PreflightCheck(appID: appID, options: options, keepsFile: keepsFile, deliversToHandler: deliversToHandler,
                                   configuration: configuration, decision: now).checkPolicy()
            } catch {
                await grant.close()
                audioCore?.close()
                abandon(sinks, file, configuration.store, heldFile)
                throw error
            }
            decision = now
        }

        // 3. Capture.
        var pipelineOptions = CapturePipelineOptions(video: .node(id: grant.nodeID))
        pipelineOptions.microphone = audio.microphone
        pipelineOptions.systemAudio = audio.systemAudio
        pipelineOptions.processing = FrameProcessingOptions()
            .compositingCursor(options.cursor == .metadata)
            .masking(options.masks)
            .cropping(to: options.crop, honouringStreamCrop: true)
        pipelineOptions.fpsCap = options.fps
        pipelineOptions.preferredFrameRate = FrameRate(options.fps)
        pipelineOptions.noFrameTimeout = configuration.noFrameTimeout
        pipelineOptions.cursorMetadata = options.cursor == .metadata
        pipelineOptions.videoBufferMapping = configuration.videoBufferMapping
        pipelineOptions.heldBufferFallback = configuration.heldBufferFallback
        pipelineOptions.delivery.threadScheduling = configuration.deliveryThreadScheduling

        let firstFrame = FirstFrameSignal()
        let sessionBox = Mutex<RecordingSession?>(nil)
        // A sink that fails while the start is still waiting (the encoder refusing the first frame's size) is
        // told to the session once it exists.
        let earlySinkFailures = Mutex<[(String, SinkError)]>([])
        // Likewise an end after the first frame (PipeWire gone, the watchdog, a rejected frame) that comes before
        // the session is stored: reported once, so it must not be lost.
        let pendingEnd = Mutex<RecordingError??>(nil)
        @Sendable func deliverEnd(_ error: RecordingError) {
            let session = sessionBox.withLock { box -> RecordingSession? in
                if box == nil { pendingEnd.withLock { if $0 == nil { $0 = .some(error) } } }
                return box
            }
            session?.end(error)
        }
        let openedFormat = Mutex<VideoFormat?>(nil)
        let pipeline = CapturePipeline(videoCore: grant.core, audioCore: audioCore, sinks: sinks, options: pipelineOptions) { event in
            switch event {
            case .started(let format):
                openedFormat.withLock { $0 = format }
                firstFrame.signal(nil)
            case .ended(let cause):
                firstFrame.signal(cause)
                deliverEnd(RecordingError(cause))
            case .sinkFailed(let sink, let error):
                let session = sessionBox.withLock { box -> RecordingSession? in
                    if box == nil { earlySinkFailures.withLock { $0.append((sink, error)) } }
                    return box
                }
                session?.sinkFailed(sink, error)
            case .framesRejected(let error):
                // Before the first frame it fails the start; later it ends the recording (kept so far).
                if !firstFrame.reject(error) { deliverEnd(.failed(reason: error.description)) }
            case .microphoneLost(let end):
                // The recording goes on without sound from then on: said at the end, with the recording.
                sessionBox.withLock { $0 }?.warn("the microphone stopped during the recording (\(end)); it is silent from there")
            case .systemAudioLost(let end):
                sessionBox.withLock { $0 }?.warn("the system audio stopped during the recording (\(end)); it is silent from there")
            case .formatChanged: break
            }
        }
        let session = RecordingSession(appID: appID, options: options, configuration: configuration, grant: grant,
                                       audioCore: audioCore, pipeline: pipeline, file: file, destination: destination,
                                       keepsFile: keepsFile, deliversToHandler: deliversToHandler, held: heldFile,
                                       appLock: appLock, onEnd: onEnd)
        do {
            try pipeline.start()
        } catch {
            _ = await session.finish(error: nil, keep: false)
            throw .failedToStart(reason: "PipeWire: \(error)")
        }
        switch await firstFrame.wait(timeout: configuration.firstFrameTimeout) {
        case .started:
            break
        case .ended(let cause):
            _ = await session.finish(error: nil, keep: false)
            throw .failedToStart(reason: cause.description)
        case .rejected(let error):
            _ = await session.finish(error: nil, keep: false)
            throw .invalidParameter(error.description)
        case .timedOut:
            let progress = pipeline.startProgress
            _ = await session.finish(error: nil, keep: false)
            throw .failedToStart(reason: "no frame arrived within \(configuration.firstFrameTimeout) of the portal granting the screen cast: \(progress)")
        }

        // A sink failing to open (e.g. the encoder at a size it cannot take) fails the start; it is reported
        // before `.started`, so it is known here, before the previous kept recording is replaced.
        if let failure = earlySinkFailures.withLock({ $0.first }) {
            _ = await session.finish(error: nil, keep: false)
            throw heldFile.readable(RecordingError(failure.1)).nothingRecorded
        }

        // 4. Started: the pending file becomes the kept recording (the previous one goes); a file bound for an
        // output stays where it is until the end.
        session.state.withLock { $0.recordedFormat = openedFormat.withLock { $0 } }
        if let file, destination == nil {
            var info = session.info(duration: 0)
            info.inProgress = true
            do {
                let recording = try configuration.store.keep(file, info: info)
                session.state.withLock { $0.kept = recording }
            } catch {
                // Not kept (its info could not be written): the start fails and leaves nothing behind.
                _ = await session.finish(error: nil, keep: false)
                throw error
            }
        }
        let early = sessionBox.withLock { box in
            box = session
            return earlySinkFailures.withLock { $0 }
        }
        for (sink, error) in early { session.sinkFailed(sink, error) }
        if let ended = pendingEnd.withLock({ $0 }) { session.end(ended) }
        session.state.withLock { $0.limit = Self.maxDuration(options, decision); $0.decision = decision }
        session.startTimers(onProgress: onProgress)
        return session
    }

    /// A start that failed before capture: close the unopened sinks first (closing may touch their files),
    /// then remove the pending file, so nothing is left behind.
    private static func abandon(_ sinks: [any CaptureSink], _ file: URL?, _ store: RecordingStore, _ held: HeldDescriptor) {
        for sink in sinks { _ = try? sink.close() }
        held.close()
        file.map(store.removePending)
    }

    static func maxDuration(_ options: RecordingOptions, _ decision: PolicyDecision) -> Duration? {
        let requested = options.maxDuration.map { Duration.milliseconds(Int64($0 * 1000)) }
        switch (requested, decision.maxDuration) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    var isPaused: Bool { pipeline.isPaused }
    func pause() -> Bool { guard !pipeline.isPaused else { return false }; pipeline.pause(); return true }
    func resume() -> Bool { guard pipeline.isPaused else { return false }; pipeline.resume(); return true }

    /// Whether this recording takes the microphone (it can be muted and unmuted, not added later).
    var recordsMicrophone: Bool { options.microphone }
    /// Mutes (silence in its place) or unmutes the microphone from now on.
    func setMicrophoneMuted(_ muted: Bool) { pipeline.setMicrophoneMuted(muted) }

    /// Asks the owner to end the recording with `error` (nil: a normal stop, e.g. max duration); once.
    func end(_ error: RecordingError?) {
        let first = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.ended = true
            return true
        }
        if first {
            pipeline.stopAccepting()
            onEnd(self, error)
        }
    }

    private func sinkFailed(_ sink: String, _ error: SinkError) {
        let mapped = held.readable(RecordingError(error))
        state.withLock { if $0.sinkError == nil { $0.sinkError = mapped } }
        // Any sink failing ends the recording (what was recorded is kept): each was asked for, and recording on
        // would leave its output missing, found out only at the end (docs/plugins.md: "A failing write_* stops
        // the recording"). A handler given to `startCapture` cannot fail.
        end(mapped)
    }

    /// Stops capture, finalizes every sink and the kept recording's info, closes the portal session.
    /// Idempotent: later calls return the first outcome.
    func finish(error: RecordingError?, keep: Bool = true) async -> (recording: Recording?, error: RecordingError?) {
        if let done = state.withLock({ $0.finished }) { return done }
        state.withLock { s in
            s.ended = true
            for t in s.tasks { t.cancel() }
        }
        let report = await pipeline.finish()
        checkMicrophoneSentSound()
        for outcome in report.outcomes where outcome.missedBehind > 0 {
            warn("sink '\(outcome.sink)' fell behind and missed \(outcome.missedBehind) frame\(outcome.missedBehind == 1 ? "" : "s") "
                 + "(it gets copies through a queue of its own; the recording's file is not affected)")
        }
        // The file's picture size is the encoder's (4:2:0 cuts an odd size to even), which the info then says.
        if let size = report.outcomes.first(where: { $0.sink == "encoder" })?.result?.encodedSize {
            state.withLock { s in
                s.recordedFormat?.width = size.width
                s.recordedFormat?.height = size.height
            }
        }
        defer { held.close() }   // after the file is put in place, through it
        await grant.close()
        audioCore?.close()
        let sinkError = state.withLock { $0.sinkError }
        var finalError = error ?? report.errors.first.map { held.readable(RecordingError($0.error)) } ?? sinkError
        if case .failed? = finalError, sinkError != nil, error == nil { finalError = sinkError }
        var recording: Recording?
        // A file the encoder never wrote to (it refused the first frame) holds nothing to keep.
        let wroteNothing = file.flatMap(Self.fileSize) == 0
        if keep, wroteNothing, let file {
            if destination == nil, let kept = state.withLock({ $0.kept }) { configuration.store.removeKept(kept) }
            unlink(file.path)
            finalError = finalError?.nothingRecorded
        } else if keep, let file, let destination {
            var info = finalInfo(report, finalError)
            do throws(RecordingError) {
                // Checked again now: a folder on the way may have been swapped for a link elsewhere since the
                // start (while the consent dialog was open, say). The file stays where it is if so.
                let decision = state.withLock { $0.decision }
                for path in [file.path, destination.path] { try OutputPlace.check(placing: path, decision) }
                try held.place(file, at: destination, overwrite: options.overwrite)
                info.fileName = destination.lastPathComponent
                recording = Recording(file: destination, info: info, store: configuration.store, isKept: false)
            } catch {
                // Nothing is lost: the finished file stays where it was written, and the error says where.
                let now = held.currentLocation.map { URL(fileURLWithPath: $0) } ?? file   // its folder may have moved
                info.fileName = now.lastPathComponent
                recording = Recording(file: now, info: info, store: configuration.store, isKept: false)
                let location = "; the recording is in \(now.path)"
                if let earlier = finalError {
                    // The recording already ended with an error (the policy broke, say): that one stays, and
                    // says where the file is.
                    finalError = earlier.adding(location)
                } else if case .disabled(let reason) = error {
                    finalError = .disabled(reason: reason + location)
                } else {
                    finalError = .filePermissions(path: destination.path, reason: Self.reason(error) + location)
                }
            }
        } else if keep, let kept = state.withLock({ $0.kept }) {
            try? configuration.store.update(finalInfo(report, finalError))
            recording = configuration.store.kept(for: appID) ?? kept
        } else if let file, state.withLock({ $0.kept }) == nil {
            configuration.store.removePending(file)
        }
        let outcome = (recording, finalError)
        state.withLock { if $0.finished == nil { $0.finished = outcome } }
        appLock?.release()   // the kept recording and its info are final: another recording may replace them
        return state.withLock { $0.finished! }
    }

    private static func reason(_ error: RecordingError) -> String {
        if case .filePermissions(_, let reason) = error { return reason }
        return error.description
    }

    /// The recording's info now. Once it is the kept recording, with the kept one's name and creation time
    /// (`RecordingStore.keep` stores that in whole seconds).
    private func info(duration: Double) -> RecordingInfo {
        let stats = pipeline.statistics
        var info = RecordingInfo(appID: appID, fileName: file?.lastPathComponent ?? "", created: created, duration: duration,
                                 videoFormat: state.withLock { $0.recordedFormat } ?? pipeline.videoFormat,
                                 audioFormat: options.microphone || options.systemAudio ? (pipeline.audioFormat ?? AudioFormat()) : nil,
                                 videoFrames: stats.videoFrames, droppedFrames: stats.droppedFrames)
        let (warnings, kept) = state.withLock { ($0.warnings, $0.kept) }
        info.warnings = warnings.isEmpty ? nil : warnings
        if let kept {
            info.fileName = kept.info.fileName
            info.created = kept.info.created
        }
        return info
    }

    /// The finished recording's info: its length, the frames lost (by the stream and by the queue), and how it
    /// ended.
    private func finalInfo(_ report: DeliveryReport, _ error: RecordingError?) -> RecordingInfo {
        var info = info(duration: pipeline.elapsed)
        // The pipeline's drops already hold the queue's (`report.statistics` is the same queue's count, with
        // audio chunks too); the frames the sinks got are those handed on minus those the queue let go.
        let stats = pipeline.statistics
        info.droppedFrames = stats.droppedFrames
        info.videoFrames = max(0, stats.videoFrames - report.statistics.droppedVideo - report.statistics.rejectedVideo)
        info.endedWithError = error?.description
        return info
    }

    /// Notes something the user should hear about with the recording (`RecordingInfo.warnings`); once each.
    func warn(_ warning: String) {
        state.withLock { if !$0.warnings.contains(warning) { $0.warnings.append(warning) } }
    }

    /// A microphone asked for that sent nothing for a whole recording (none connected, or the default input
    /// pointing at a device that is gone) leaves a silent track: the recording worked, but the user must know.
    private func checkMicrophoneSentSound() {
        guard options.microphone, pipeline.statistics.microphoneChunks == 0, pipeline.elapsed >= 1 else { return }
        warn("the microphone sent no sound, so the recording's audio track is silent; check that a microphone is "
             + "connected and chosen as the default input ('wpctl status')")
    }

    /// How often a running recording's kept info is brought up to date.
    static let infoInterval = Duration.seconds(2)

    private func noteProgressInInfo() {
        guard state.withLock({ $0.kept }) != nil else { return }
        var info = info(duration: pipeline.elapsed)
        info.inProgress = true
        // Written under the lock, and only before the end: `finish` sets `ended` under it before it writes the
        // final info, so this can never overwrite that.
        let store = configuration.store
        state.withLock { s in if !s.ended { try? store.update(info) } }
    }

    /// The file's size, nil when it is not there (its name swapped away, say).
    private static func fileSize(_ url: URL) -> Int64? {
        var st = stat()
        return stat(url.path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// The policy changed while recording: what it no longer allows ends the recording (`disabled`), and a
    /// new max duration applies from now on (at once when already reached, as a normal stop).
    ///
    /// `current` is read under `policyUpdate`: two changes applied at once from two threads (the policy
    /// watcher, the end of a start) cannot leave the older decision in force.
    func policyChanged(_ current: () -> PolicyDecision) {
        let failure: RecordingError? = policyUpdate.withLock { _ in
            let decision = current()
            // Kept first: the end's output check must see the policy that stopped the recording.
            state.withLock { $0.decision = decision }
            do throws(RecordingError) {
                try PreflightCheck(appID: appID, options: options, keepsFile: keepsFile, deliversToHandler: deliversToHandler,
                                   configuration: configuration, decision: decision).checkPolicy()
            } catch {
                return error
            }
            state.withLock { $0.limit = Self.maxDuration(options, decision) }
            return nil
        }
        if let failure { end(failure) }
    }

    private func startTimers(onProgress: @escaping @Sendable (RecordingProgress) -> Void) {
        let interval = configuration.progressInterval
        let progress = Task { [weak self] in
            var infoWritten = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                let s = self.pipeline.statistics
                let bytes = self.file.flatMap(Self.fileSize) ?? 0
                onProgress(RecordingProgress(elapsed: self.pipeline.elapsed, frames: s.videoFrames, droppedFrames: s.droppedFrames, bytes: bytes))
                // The kept recording's info follows along every few seconds, so a recorder killed outright
                // leaves one that says about how long its file is (finish writes the final one).
                if ContinuousClock.now - infoWritten >= Self.infoInterval {
                    infoWritten = .now
                    self.noteProgressInInfo()
                }
            }
        }
        let closed = grant.closed
        let watchClosed = Task { [weak self] in
            for await _ in closed {}
            guard !Task.isCancelled else { return }
            self?.end(.interrupted(reason: "the screen-cast session was closed"))
        }
        var tasks = [progress, watchClosed]
        tasks.append(Task { [weak self] in
            // Recording time (the clock since the first frame, pauses excluded), so audio and video end together.
            // The limit is read each time round: a policy change may lower it, or set one.
            while !Task.isCancelled {
                guard let self else { return }
                guard let limit = self.state.withLock({ $0.limit }) else {
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                let remaining = limit / .seconds(1) - self.pipeline.elapsed
                if remaining <= 0.02 { self.end(nil); return }
                try? await Task.sleep(for: .milliseconds(Int64(min(max(remaining * 1000 / 2, 10), 200))))
            }
        })
        state.withLock { $0.tasks = tasks }
    }
}

/// Waits for the pipeline's first frame or its end, whichever comes first.
final class FirstFrameSignal: Sendable {
    enum Outcome: Sendable { case started, ended(CaptureEnd), rejected(FrameTransformError), timedOut }
    private let state = Mutex<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

    func signal(_ cause: CaptureEnd?) {
        settle(cause.map { .ended($0) } ?? .started)
    }

    /// The first frame cannot be processed; false when an outcome came first (the recording had started).
    func reject(_ error: FrameTransformError) -> Bool {
        settle(.rejected(error))
    }

    @discardableResult
    private func settle(_ outcome: Outcome) -> Bool {
        let (first, waiter) = state.withLock { s -> (Bool, CheckedContinuation<Outcome, Never>?) in
            guard s.outcome == nil else { return (false, nil) }
            s.outcome = outcome
            defer { s.waiter = nil }
            return (true, s.waiter)
        }
        waiter?.resume(returning: outcome)
        return first
    }

    func wait(timeout: Duration) async -> Outcome {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self?.expire() }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Outcome? in
                if let o = s.outcome { return o }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func expire() {
        let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            guard s.outcome == nil else { return nil }
            s.outcome = .timedOut
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: .timedOut)
    }
}
