import Foundation
import PortalCapture
import Plugins

/// `pwrecord screenshot [-o FILE.png|FILE.pdf] [--window] [--long] [--interactive]`.
///
/// Plain: the Screenshot portal (`org.freedesktop.portal.Screenshot`), saved as the PNG it hands over, or
/// decoded and saved as a one-page PDF.
/// Long: a ScreenCast stream of what the user scrolls, stitched as it arrives (`ScrollStitcher`) into one
/// tall PNG or PDF; it stops on Enter or Ctrl-C, when scrolling has stopped for `--idle-stop`, or at
/// `--max-height`.
enum ScreenshotCommand {
    /// A screenshot captures the screen as a recording does: the policy's `recording` and `hours` (a recording
    /// could be made of screenshots) and `output-dirs` apply, checked before the portal is asked. Its
    /// `max-duration`, `microphone` and `sinks` do not (there are none in a screenshot). Fails closed.
    static func policyRefusal(output: URL) -> RecordingError? {
        do throws(RecordingError) {
            return refusal(of: try PolicyInForce.decision(appID: "pwrecord", doing: "taking the screenshot"), output: output)
        } catch {
            return error
        }
    }

    /// Why `decision` does not let a screenshot be taken now and saved at `output`, or nil.
    static func refusal(of decision: PolicyDecision, output: URL) -> RecordingError? {
        do throws(RecordingError) {
            try OutputPlace.checkAvailable(decision)
            try OutputPlace.check(placing: output.path, decision)
            return nil
        } catch {
            return error
        }
    }

    static func run(_ parsed: ParsedCommand, config: UserConfig, console: Console) async throws(CommandLineError) -> ExitCode {
        if parsed.value("output")?.isEmpty == true {
            throw CommandLineError(reason: .invalidValue(option: "--output", value: "", reason: "give a file name ending in .png or .pdf"),
                                   commandPath: parsed.path)
        }
        let output = config.outputURL(for: parsed.value("output") ?? "screenshot.png")
        let ext = output.pathExtension.lowercased()
        guard ext == "png" || ext == "pdf" else {
            throw CommandLineError(reason: .invalidValue(option: "--output", value: output.path, reason: "the file must end in .png or .pdf"),
                                   commandPath: parsed.path)
        }
        if parsed.flag("long") && parsed.flag("interactive") {
            // A long screenshot's ScreenCast dialog always asks what to share; the Screenshot portal's
            // interactive dialog is not used, so the flag would be silently ignored.
            throw CommandLineError(reason: .invalidCombination("'--interactive' applies only to a plain screenshot "
                                                               + "(a long one always asks what to share); leave it out"),
                                   commandPath: parsed.path)
        }
        if !parsed.flag("long"), let given = ["idle-stop", "max-height"].first(where: { parsed.value($0) != nil }) {
            throw CommandLineError(reason: .invalidCombination("'--\(given)' applies only to a long screenshot; add --long"),
                                   commandPath: parsed.path)
        }
        let idleStop = try parsed.value("idle-stop", ValueParsers.duration) ?? 3
        let maxHeight = try parsed.value("max-height") { s throws(ValueError) in try ValueParsers.integer(s, in: 100...1_000_000) } ?? 60_000
        if let reason = PrivateFile.destinationProblem(output, replacing: parsed.flag("force"), example: "screenshot.\(ext)") {
            console.error("cannot write \(output.path): \(reason)")
            return .failure
        }
        if let refusal = policyRefusal(output: output) {
            console.error(refusal.description, hint: "see 'pwrecord policy explain'")
            return .disabledByPolicy
        }
        if parsed.flag("long") {
            return await long(output: output, window: parsed.flag("window"), idleStop: idleStop, maxHeight: maxHeight,
                              replacing: parsed.flag("force"), console: console)
        }
        // The portal's own file is removed only once the output is written: a write that fails leaves it.
        let options = PortalScreenshotOptions(interactive: parsed.flag("interactive") || parsed.flag("window"))
        var portalFile: String?
        do {
            let portal = try ScreenshotPortal()
            let shot = try await portal.take(options.removeTemporaryFile(false))
            portalFile = shot.url.path
            if ext == "pdf" {
                // The portal hands over a PNG: decoded, then written as a one-page PDF.
                let image: StitchedImage
                do { image = try PNGReader().decode(Array(shot.data)) } catch {
                    console.error("cannot read the portal's screenshot \(shot.url.path): \(error.description)")
                    return .failure
                }
                try PDFWriter().write(image, to: output.path, replacing: parsed.flag("force"))
            } else {
                try ScreenshotFile.write(Array(shot.data), to: output.path, replacing: parsed.flag("force"))
            }
            options.removeIfTemporary(shot.url.path)
            console.out("saved \(output.path)")
            return .success
        } catch let error as PortalError {
            console.error(screenshotWording(error))
            return ExitCode(RecordingError(error))
        } catch let error as ScreenshotError {
            let kept = portalFile.map { "; the portal's screenshot is still at \($0)" } ?? ""
            if case .fileWriteFailed = error { console.error(error.description + kept) }   // it names the file itself
            else { console.error("cannot save \(output.path): \(error.description)\(kept)") }
            return .failure
        } catch {
            console.error("\(error)")
            return .failure
        }
    }

    /// `replacing`: whether a file at `output` when the image is done may be replaced (`--force`); without it, a
    /// file that appeared during the capture is left alone and the write fails.
    ///
    /// The policy is watched while scrolling, as a recording's is: a change that no longer allows capturing
    /// (recording denied, the hours over, a broken file) stops it, and what was captured before is saved where
    /// the policy still allows it (exit 4). The output's place is checked again before the image is written.
    static func long(output: URL, window: Bool, idleStop: Double, maxHeight: Int, replacing: Bool,
                     console: Console) async -> ExitCode {
        let watcher: PolicyWatcher
        do {
            watcher = try PolicyWatcher(subject: try PolicySubject.current(appID: "pwrecord"))
        } catch {
            console.error(RecordingError.disabled(reason: "the policy cannot be watched during the capture: \(error)").description)
            return .disabledByPolicy
        }
        defer { watcher.cancel() }
        let provider = Providers.screenCast()
        let grant: any ScreenCastGrant
        do {
            grant = try await provider.startCast(ScreenCastRequest(appID: "pwrecord", sources: window ? .window : .monitor,
                                                                   multiple: false, cursor: .hidden,
                                                                   consentMemory: watcher.decision.consentMemory))
        } catch {
            console.error(screenshotWording(error))
            return ExitCode(error)
        }
        let stitcher = StitchSink(options: StitchOptions(maximumHeight: maxHeight))
        // The capture ending on its own (the stream gone, PipeWire gone) ends the wait at once, with its cause.
        let (ends, endsContinuation) = AsyncStream.makeStream(of: String.self)
        let pipeline = CapturePipeline(videoCore: grant.core, audioCore: nil, sinks: [stitcher],
                                       options: CapturePipelineOptions(video: .node(id: grant.nodeID)), onEvent: { event in
            if case .ended(let end) = event { endsContinuation.yield(end.description) }
        })
        let closed = grant.closed
        do { try pipeline.start() } catch {
            await grant.close()
            console.error("PipeWire: \(error)")
            return .failure
        }
        // Enter is read only from a terminal (EnterKey): without one, it is not offered.
        let keys = isatty(STDIN_FILENO) != 0 ? "press Enter or Ctrl-C" : "send SIGINT (Ctrl-C)"
        console.note("scroll the content now; \(keys) when done (stops by itself after "
                     + "\(DurationText.seconds(idleStop)) without scrolling)")
        let stops = StopSignals()
        let enter = EnterKey()
        let idle = Duration.milliseconds(Int64(idleStop * 1000))
        let decisions = watcher.decisions()
        let stoppedByPolicy = await withTaskGroup(of: RecordingError?.self) { group in
            group.addTask {
                for await decision in decisions {
                    if let refusal = refusal(of: decision, output: output) { return refusal }
                }
                return nil
            }
            group.addTask { for await s in stops.signals where s == .stop { return nil }; return nil }
            group.addTask {
                for await cause in ends {
                    console.note("the capture ended (\(cause)); saving what was captured before that")
                    return nil
                }
                return nil
            }
            group.addTask {
                for await _ in closed {}
                // Finished without cancellation: the desktop closed the screen-cast session.
                if !Task.isCancelled { console.note("the desktop ended the screen cast; saving what was captured before that") }
                return nil
            }
            group.addTask {
                // Enter stops; a closed stdin (EOF) does not, so the idle stop or a signal decides.
                if await enter.pressed() { return nil }
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(200)) }
                return nil
            }
            group.addTask {
                var toldLost = false
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    if stitcher.reachedMaximum || stitcher.failed || stitcher.idleFor > idle { return nil }
                    // Said as it happens, so the user can go back while the page is still on screen.
                    let lost = stitcher.isLost
                    if lost, !toldLost {
                        console.note("a frame could not be joined to what was captured (the content scrolled too far, or "
                                     + "changed): scroll back until the last part captured is in view, then scroll more slowly")
                    } else if !lost, toldLost {
                        console.note("joined again: carry on scrolling")
                    }
                    toldLost = lost
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        stops.cancel()
        endsContinuation.finish()
        _ = await pipeline.finish()
        await grant.close()
        var exit = ExitCode.success
        if stitcher.reachedMaximum {
            console.note("the image reached --max-height (\(maxHeight) rows); saving what was captured up to there")
        }
        // Frames are only ever placed against the image, so it has no holes: what was left out is missing only
        // when the capture ended before the content was joined again.
        if stitcher.lostFrames > 0 {
            console.note("warning: the last \(stitcher.lostFrames) frame(s) could not be joined to the image (the content "
                         + "scrolled too far, or changed), so what they showed is not in it; scroll more slowly")
        } else if stitcher.unalignedFrames > 0 {
            console.note("\(stitcher.unalignedFrames) frame(s) could not be joined (the content scrolled too far, or "
                         + "changed) and were left out; the capture was joined again after them")
        }
        if stitcher.ambiguousFrames > 0 {
            console.note("warning: \(stitcher.ambiguousFrames) frame(s) shared only blank or repeating rows with the one "
                         + "before and were placed by a guess; check the image where the page has long blank stretches or "
                         + "rows that repeat")
        }
        if let stoppedByPolicy {
            console.error("the capture was stopped: " + stoppedByPolicy.description)
            exit = .disabledByPolicy
        }
        // The place is checked again before writing: the policy may have changed, or a folder on the way been
        // swapped for a link elsewhere, since the start. (What was captured while allowed is saved, as a
        // recording the policy stops keeps what it recorded.)
        do throws(RecordingError) {
            try OutputPlace.check(placing: output.path, watcher.decision)
        } catch {
            if stoppedByPolicy == nil { console.error(error.description) }
            console.error("nothing was saved")
            return .disabledByPolicy
        }
        do {
            let (image, truncatedBy) = try stitcher.result()
            if let truncatedBy { console.note("\(truncatedBy.description); saving what was captured before that") }
            func write(to path: String) throws(ScreenshotError) {
                if output.pathExtension.lowercased() == "pdf" {
                    try PDFWriter().write(image, to: path, replacing: replacing)
                } else {
                    _ = try PNGWriter().write(image, to: path, replacing: replacing)
                }
            }
            do {
                try write(to: output.path)
            } catch .fileWriteFailed(_, "link", EEXIST) {
                // A file appeared at the output while the user scrolled: it is left alone, and the capture,
                // which cannot be taken again, goes to a free name beside it.
                let saved = try writeBeside(output, write)
                console.error("\(output.path) appeared during the capture and was left alone (--force replaces it); "
                              + "the image was saved as \(saved) (\(image.width)x\(image.height))")
                return .failure
            }
            console.out("saved \(output.path) (\(image.width)x\(image.height))")
            return exit
        } catch .invalidOption("maximumHeight", let reason) {
            console.error("--max-height \(reason)")
            return .usage
        } catch {
            console.error(error.description)
            return .failure
        }
    }

    /// Writes through `write` at the first free `NAME-2.EXT`, `NAME-3.EXT`... beside `output`; returns the path.
    static func writeBeside(_ output: URL, _ write: (String) throws(ScreenshotError) -> Void) throws(ScreenshotError) -> String {
        let stem = output.deletingPathExtension().path, ext = output.pathExtension
        for n in 2...99 {
            let candidate = "\(stem)-\(n).\(ext)"
            do { try write(candidate); return candidate } catch .fileWriteFailed(_, "link", EEXIST) { continue }
        }
        throw .fileWriteFailed(path: "\(stem)-99.\(ext)", operation: "link", errno: EEXIST)
    }

    /// A portal error said of a screenshot, not of a recording.
    static func screenshotWording(_ error: PortalError) -> String {
        switch error {
        case .ended:
            "the desktop refused the screenshot (the portal answered that the request ended); its permission for "
                + "screenshots may be set to deny for this app: try --interactive, or allow screenshots in the "
                + "desktop's privacy settings (the portal backend's log says more)"
        default:
            screenshotWording(RecordingError(error))
        }
    }

    /// A recorder error said of a screenshot, not of a recording.
    static func screenshotWording(_ error: RecordingError) -> String {
        switch error {
        case .userDeclined:
            "the screenshot was declined in the desktop's dialog; try again and choose what to capture"
        case .failedToStart(let reason):
            "the screenshot could not be taken: \(reason)"
        default:
            error.description
        }
    }
}
