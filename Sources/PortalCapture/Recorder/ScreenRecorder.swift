import Dispatch
import Foundation
import Synchronization

/// ReplayKit's `RPScreenRecorder` for the Linux desktop: one per app id.
///
/// ```swift
/// let recorder = ScreenRecorder.standard(appID: "org.example.Game",     // from the Plugins module
///                                        provider: PortalScreenCastProvider())
/// recorder.delegate = self
/// try await recorder.startRecording(RecordingOptions().microphone(true))
/// ...
/// let recording = try await recorder.stopRecording()     // the kept recording: save, discard, open
/// ```
///
/// Before asking the user anything, `startRecording` checks what can be checked: the policy (recording,
/// microphone, system audio, sinks, output place, hours), the options, and free space. Then the portal's dialog asks for
/// consent (or a remembered choice within the policy's consent memory is reused). The recording is written
/// to a pending file; it becomes the app's kept recording, replacing the previous one, only once the first
/// frame has arrived. With `RecordingOptions.output` (ReplayKit's `stopRecording(withOutput:)`), it is
/// written beside that file instead and put there when it ends: the kept recording is left alone.
///
/// A recording ends by `stopRecording`, by its max duration (the options' or the policy's, whichever is
/// shorter; a normal stop), or on its own: the session closed or PipeWire gone (`interrupted`), a newly
/// denying policy (`disabled`), a full disk (`insufficientStorage`), a failing sink (`failed`). In every case
/// what was recorded is finalized and kept, and the delegate hears `didStopRecordingWith` exactly once.
///
/// Threading: delegate methods and `events` are delivered on the recorder's serial event queue, in order
/// (`ScreenRecorderConfiguration.eventQueue`; `.main` for a delegate on the main actor).
public final class ScreenRecorder: Sendable {
    public let appID: String
    public let configuration: ScreenRecorderConfiguration
    private let eventQueue: DispatchQueue
    private let state = Mutex(State())
    private let delegateBox = Mutex<WeakDelegate>(WeakDelegate())
    private let subscribers = Mutex<[UUID: AsyncStream<RecorderEvent>.Continuation]>([:])
    private let monitor: AvailabilityMonitor

    struct State {
        var session: RecordingSession?
        var finished: Recording?
        var finishedError: RecordingError?
        /// The session ended on its own before `start` had stored it: the end to replay once it has (only for
        /// that very session).
        var endedWhileStarting: (session: RecordingSession, error: RecordingError?)?
        /// A session that ended on its own and is still finishing, and whether it is a capture:
        /// `stopRecording` (a recording) or `stopCapture` (a capture) waits for it.
        var finishing: (outcome: Task<(recording: Recording?, error: RecordingError?), Never>, isCapture: Bool)?
        /// Sessions taken to be finished whose outcome is not written to `finished` yet: `discardRecording`
        /// waits for none, it refuses (the file it would delete may be about to become `lastRecording`).
        var stopsInFlight = 0
        var starting = false
        var microphoneEnabled = false
    }

    struct WeakDelegate { weak var value: (any ScreenRecorderDelegate)? }

    /// - Parameter appID: names the app's kept recording and its policy sections; give your app's own id (the
    ///   default is the `pwrecord` command's, whose kept recording it would share).
    public init(appID: String = "pwrecord", configuration: ScreenRecorderConfiguration) {
        self.appID = appID
        self.configuration = configuration
        let eventQueue = configuration.eventQueue ?? DispatchQueue(label: "pwrecord.recorder.events")
        self.eventQueue = eventQueue
        monitor = AvailabilityMonitor(appID: appID, configuration: configuration)
        monitor.onChange = { [weak self] availability in
            self?.emit(.availabilityChanged(availability))
        }
        monitor.onPolicyChange = { [weak self] _ in self?.policyChanged() }
        monitor.start()
    }

    /// A recorder let go while it records stops that recording as `stopRecording()` would (finalized and kept,
    /// on a task of its own; the delegate is not told, it is gone too), and every `events` stream finishes.
    deinit {
        monitor.stop()
        if let session = state.withLock({ $0.session }) {
            Task.detached { _ = await session.finish(error: nil) }
        }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }

    // MARK: state

    /// Called on the event queue; held weakly.
    public var delegate: (any ScreenRecorderDelegate)? {
        get { delegateBox.withLock { $0.value } }
        set { delegateBox.withLock { $0.value = newValue } }
    }

    /// Every event from now on, in order; each call gives a new, independent stream.
    public var events: AsyncStream<RecorderEvent> {
        let (stream, continuation) = AsyncStream<RecorderEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Whether recording could start now, with every reason it could not. Right after `init` the portal has
    /// not been asked yet (it says so, as unavailable); `refreshAvailability()` waits for the answer, and a
    /// delegate or `events` hears the change.
    public var availability: Availability { monitor.current }
    public var isAvailable: Bool { availability.isAvailable }
    /// True from a `startRecording` or `startCapture` call (its consent dialog may still be open: a second
    /// start then throws `attemptToStartInRecordingState`) until the recording or capture has ended. A start
    /// still waiting for consent cannot be stopped; cancel its task instead (it throws `userDeclined`, as a
    /// dismissed dialog does: docs/portal.md).
    public var isRecording: Bool { state.withLock { $0.session != nil || $0.starting } }
    public var isPaused: Bool { state.withLock { $0.session?.isPaused ?? false } }

    /// Whether the next recording includes the microphone when its options do not say
    /// (`RecordingOptions.microphone`, set to either value, overrides it). Set while a recording that takes the
    /// microphone runs, it mutes it (silence from then on, the audio track going on) and unmutes it, as
    /// ReplayKit's does; a recording started without the microphone cannot gain it.
    public var isMicrophoneEnabled: Bool {
        get { state.withLock { $0.microphoneEnabled } }
        set {
            // Applied under the lock (the pipeline's own lock nests inside it, and nothing takes them the other
            // way round): two switches, or a switch and a start, reach the recording in the order they were
            // made, so the microphone is never left muted while this says true.
            state.withLock { s in
                s.microphoneEnabled = newValue
                if let session = s.session, session.recordsMicrophone { session.setMicrophoneMuted(!newValue) }
            }
        }
    }

    /// The app's kept recording, if any. While a recording that will be kept runs, it is that one, unfinished
    /// (`info.inProgress`, figures from its last update every 2 s): the previous one was replaced at its first
    /// frame.
    public var keptRecording: Recording? { configuration.store.kept(for: appID) }

    /// What the last recording produced, once it has ended (by `stopRecording` or on its own): the kept
    /// recording, or the file at its output; nil again once `discardRecording` deleted it. A capture
    /// (`startCapture`) is not a recording and leaves this and `lastRecordingError` as they were.
    public var lastRecording: Recording? { state.withLock { $0.finished } }

    /// Why the last recording ended badly (what the delegate's `didStopRecordingWith` said), nil when it ended
    /// normally or none has ended.
    public var lastRecordingError: RecordingError? { state.withLock { $0.finishedError } }

    /// The policy's decision for this app now.
    public var policyDecision: PolicyDecision { monitor.policyDecision }

    /// Re-reads availability now (the monitor also does it on every change it sees).
    public func refreshAvailability() async -> Availability { await monitor.refresh() }

    /// Why the policy as it stands would refuse a recording with `options` (`disabled`, with the rule), or nil:
    /// the checks `startRecording` makes before consent (recording now, microphone, system audio, the sinks
    /// with the encoder, output places and the kept recordings' folder), without starting anything. Other
    /// problems (a bad option, a full disk) are left to `startRecording`.
    public func policyRefusal(for options: RecordingOptions = RecordingOptions()) -> RecordingError? {
        // As `start` does: options that do not say take the recorder's microphone setting.
        var options = options
        if options.microphoneChoice == nil { options.microphone = isMicrophoneEnabled }
        do throws(RecordingError) {
            try PreflightCheck(appID: appID, options: options, keepsFile: true, configuration: configuration,
                               decision: policyDecision).checkPolicy()
            return nil
        } catch {
            return error
        }
    }

    // MARK: recording

    /// Starts recording; returns once the first frame has been captured (the recording is then the kept one).
    /// Called right behind a stop that is still finalizing, it waits for that stop first.
    public func startRecording(_ options: RecordingOptions = RecordingOptions()) async throws(RecordingError) {
        try await start(options, extraSinks: [])
    }

    /// ReplayKit's `startCapture(handler:)`: samples (video frames and audio chunks, tagged) go to `handler`
    /// on the delivery thread, besides any sinks in `options`; no file is kept unless `options.sinks` asks.
    public func startCapture(_ options: RecordingOptions = RecordingOptions(),
                             handler: @escaping @Sendable (CaptureSample) -> Void) async throws(RecordingError) {
        try await start(options, extraSinks: [SampleHandlerSink(id: "capture") { handler($0) }], captureOnly: true)
    }

    /// `startCapture` with the samples as an `AsyncSequence` (a `SampleStreamSink`): video frames and audio
    /// chunks, tagged, in order; it ends after the capture's last sample (`stopCapture`, or the capture ending
    /// on its own). It buffers at most `bufferLimit` samples and drops the oldest when the reader falls behind.
    public func startCapture(_ options: RecordingOptions = RecordingOptions(),
                             bufferLimit: Int = 4) async throws(RecordingError) -> AsyncStream<CaptureSample> {
        let sink = SampleStreamSink(id: "capture", bufferLimit: bufferLimit)
        try await start(options, extraSinks: [sink], captureOnly: true)
        return sink.samples
    }

    /// Stops and finalizes; returns the kept recording, or the file at the options' output. A capture
    /// (`startCapture`) is not a recording: it is left running, `attemptToStopNonRecording` (use `stopCapture`).
    @discardableResult
    public func stopRecording() async throws(RecordingError) -> Recording {
        guard let session = try? takeSession(capture: false) else {
            let outcome = try await finishingOutcome(capture: false)
            guard let recording = outcome.recording else { throw outcome.error ?? .failed(reason: "nothing was recorded") }
            return recording
        }
        let outcome = await session.finish(error: nil)
        state.withLock {
            $0.finished = outcome.recording
            $0.finishedError = outcome.error
            $0.stopsInFlight -= 1
        }
        emitStopped(outcome.error)
        guard let recording = outcome.recording else {
            throw outcome.error ?? .failed(reason: "nothing was recorded")
        }
        return recording
    }

    /// Stops, finalizes and saves the recording to `output` (atomically; an existing file is an error unless
    /// `overwrite`). A recording started with this output is already there; a kept one is copied and stays
    /// kept, like ReplayKit's preview. A destination that exists (without `overwrite`) or that the policy's
    /// output places do not allow is refused before the recording is stopped: it keeps running. A save that
    /// fails after the stop (a full disk) throws with the recording ended and kept (`lastRecording`).
    @discardableResult
    public func stopRecording(output: URL, overwrite: Bool = false) async throws(RecordingError) -> Recording {
        // The checks `save(to:overwrite:allowedBy:)` makes below, before the stop.
        if let running = state.withLock({ $0.session }), running.keepsFile,
           running.destination?.standardizedFileURL != output.standardizedFileURL,
           running.file?.standardizedFileURL != output.standardizedFileURL {
            try OutputPlace.check(placing: output.path, policyDecision)
            try Recording.checkDestination(output, overwrite: overwrite, fileExtension: running.file?.pathExtension ?? "")
        }
        let recording = try await stopRecording()
        if recording.file.standardizedFileURL == output.standardizedFileURL { return recording }
        try recording.save(to: output, overwrite: overwrite, allowedBy: policyDecision)
        return recording
    }

    /// Ends a capture started with `startCapture`. A recording (`startRecording`) is not a capture: it is left
    /// running, `attemptToStopNonRecording` (use `stopRecording`).
    public func stopCapture() async throws(RecordingError) {
        guard let session = try? takeSession(capture: true) else {
            if let error = try await finishingOutcome(capture: true).error { throw error }
            return
        }
        let outcome = await session.finish(error: nil)
        state.withLock { $0.stopsInFlight -= 1 }
        emitStopped(outcome.error)
    }

    /// Deletes the kept recording; returns whether it did. While a recording of this app is in progress (by
    /// this recorder or any other with the same app id), or this recorder's last one is still being finalized,
    /// it does nothing: the kept file may be the one being written. Stop first, then discard.
    @discardableResult
    public func discardRecording() -> Bool {
        guard state.withLock({ $0.stopsInFlight == 0 }), let kept = configuration.store.kept(for: appID),
              configuration.store.discard(appID: appID, file: kept.file) else { return false }
        state.withLock { if $0.finished?.file == kept.file { $0.finished = nil } }
        return true
    }

    public func pauseRecording() throws(RecordingError) {
        guard let session = state.withLock({ $0.session }) else { throw .attemptToStopNonRecording }
        if session.pause() { emit(.paused) }
    }

    public func resumeRecording() throws(RecordingError) {
        guard let session = state.withLock({ $0.session }) else { throw .attemptToStopNonRecording }
        if session.resume() { emit(.resumed) }
    }

    // MARK: internals

    private func start(_ options: RecordingOptions, extraSinks: [any CaptureSink], captureOnly: Bool = false) async throws(RecordingError) {
        // A recording that ended on its own may still be finishing (it holds the app's lock until its file is
        // final): a new one starts after it, as it would after `stopRecording`.
        if let finishing = state.withLock({ $0.finishing }) { _ = await finishing.outcome.value }
        // Likewise a `stopRecording` or `stopCapture` still finalizing (a toggle button's start right behind
        // its stop): it holds the app's lock until its file is final.
        while state.withLock({ $0.stopsInFlight > 0 && $0.session == nil && !$0.starting }) {
            guard !Task.isCancelled else { throw .userDeclined }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let microphone = state.withLock { s -> Bool? in
            guard s.session == nil, !s.starting else { return nil }
            s.starting = true
            return s.microphoneEnabled
        }
        guard let microphone else { throw .attemptToStartInRecordingState }
        var options = options
        if options.microphoneChoice == nil { options.microphone = microphone }
        do {
            let session = try await RecordingSession.start(
                appID: appID, options: options, extraSinks: extraSinks, keepsFile: !captureOnly,
                configuration: configuration, decision: monitor.policyDecision,
                policyNow: { [monitor] in monitor.policyDecision },
                onEnd: { [weak self] session, error in self?.sessionEndedByItself(session, error) },
                onProgress: { [weak self] progress in self?.emit(.progress(progress)) })
            let endedEarly = state.withLock { s -> RecordingError?? in
                s.session = session
                s.starting = false
                // The microphone switched off while the consent dialog was open: muted from the start (under
                // the lock, like the switch itself).
                if session.recordsMicrophone && options.microphoneChoice == nil && !s.microphoneEnabled {
                    session.setMicrophoneMuted(true)
                }
                defer { s.endedWhileStarting = nil }
                guard let ended = s.endedWhileStarting, ended.session === session else { return nil }
                return .some(ended.error)
            }
            emit(.started)
            if let endedEarly { sessionEndedByItself(session, endedEarly) }
            // The policy may have changed while the consent dialog was open: it applies from the start.
            session.policyChanged { monitor.policyDecision }
        } catch {
            state.withLock { $0.starting = false }
            throw error
        }
    }

    /// The outcome of a session of the kind asked for that ended on its own a moment ago and is still finishing
    /// (the encoder flushing): a stop then gets the same outcome. `attemptToStopNonRecording` when there is none.
    private func finishingOutcome(capture: Bool) async throws(RecordingError) -> (recording: Recording?, error: RecordingError?) {
        guard let finishing = state.withLock({ $0.finishing }), finishing.isCapture == capture else {
            throw .attemptToStopNonRecording
        }
        return await finishing.outcome.value
    }

    /// Takes the running session when it is of the kind asked for (a capture to a handler, or a recording).
    private func takeSession(capture: Bool) throws(RecordingError) -> RecordingSession {
        guard let session = state.withLock({ s -> RecordingSession? in
            guard let running = s.session, running.keepsFile != capture else { return nil }
            s.session = nil
            s.stopsInFlight += 1
            return running
        }) else { throw .attemptToStopNonRecording }
        return session
    }

    /// The session ended on its own (interrupted, max duration, disk full...): finalize and report once.
    private func sessionEndedByItself(_ ended: RecordingSession, _ error: RecordingError?) {
        let finishing = state.withLock { s -> Task<(recording: Recording?, error: RecordingError?), Never>? in
            guard let current = s.session, current === ended else {
                // Not stored yet: `start` is still returning; it replays this end once it has stored the session.
                if s.session == nil, s.starting { s.endedWhileStarting = (ended, error) }
                return nil
            }
            s.session = nil
            // The outcome is recorded before the task returns, so whoever awaits it finds it in place.
            let task = Task { [self] in
                let outcome = await ended.finish(error: error)
                self.state.withLock { s in
                    if ended.keepsFile {
                        s.finished = outcome.recording
                        s.finishedError = outcome.error
                    }
                    s.finishing = nil
                    s.stopsInFlight -= 1
                }
                return outcome
            }
            s.finishing = (task, isCapture: !ended.keepsFile)
            s.stopsInFlight += 1
            return task
        }
        guard let finishing else { return }
        Task { emitStopped(await finishing.value.error) }
    }

    /// A policy change while recording: whatever it no longer allows (recording now, the microphone, system
    /// audio, a sink, the output place) stops it with `disabled`; a new max duration applies from now on.
    private func policyChanged() {
        guard let session = state.withLock({ $0.session }) else { return }
        session.policyChanged { monitor.policyDecision }
    }

    private func emitStopped(_ error: RecordingError?) { emit(.stopped(error: error)) }

    func emit(_ event: RecorderEvent) {
        eventQueue.async { [self] in
            for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
            guard let delegate else { return }
            switch event {
            case .availabilityChanged(let a): delegate.screenRecorderDidChangeAvailability(self, availability: a)
            case .started: delegate.screenRecorderDidStartRecording(self)
            case .progress(let p): delegate.screenRecorder(self, progress: p)
            case .stopped(let error): delegate.screenRecorder(self, didStopRecordingWith: error)
            case .paused: delegate.screenRecorderDidPauseRecording(self)
            case .resumed: delegate.screenRecorderDidResumeRecording(self)
            }
        }
    }
}
