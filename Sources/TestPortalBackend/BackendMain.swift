import Dispatch
import Glibc
import Synchronization

/// The process: parse the command line, start the backend, serve until SIGTERM or SIGINT (a
/// `DispatchSource` signal handler, so the exit runs on a normal queue), then end everything and exit 0.
/// Losing the bus or PipeWire ends the process with status 1: there is nothing left to serve.
enum BackendMain {
    static func run(arguments: [String]) -> Never {
        let commandLine: BackendCommandLine
        do {
            commandLine = try BackendCommandLine(arguments: arguments)
        } catch {
            BackendLog.toStandardError("pwrecord-test-portal: error: \(error)\n")
            exit(2)
        }
        if commandLine.showHelp {
            print(BackendCommandLine.help)
            exit(0)
        }
        let queue = DispatchQueue(label: "pwrecord-test-portal.main")
        let running = RunningPortal()
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                BackendLog.write("signal \(number): shutting down")
                running.portal?.shutdown()
                exit(0)
            }
            source.resume()
            return source
        }
        Task {
            let portal: TestPortal
            do {
                portal = try await TestPortal.start(streamOptions: commandLine.streamOptions)
            } catch {
                BackendLog.write("cannot start: \(error)")
                exit(1)
            }
            BackendLog.write("owns \(TestPortal.busName) as \(portal.bus.uniqueName); streams "
                             + "\(commandLine.streamOptions.videoFormat); test-mic and test-speaker ready")
            queue.async {
                running.portal = portal
                watch(portal, on: queue)
            }
        }
        withExtendedLifetime(signals) { dispatchMain() }
    }

    /// Checks twice a second that the bus and PipeWire are still there.
    private static func watch(_ portal: TestPortal, on queue: DispatchQueue) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
        timer.setEventHandler {
            _ = timer   // the handler keeps its timer alive
            let lost = !portal.bus.isConnected ? "the session bus" : portal.pipewire.failure.map { "PipeWire (\($0))" }
            guard let lost else { return }
            BackendLog.write("lost \(lost): exiting")
            portal.shutdown()
            exit(1)
        }
        timer.resume()
    }
}

/// The started backend, for the signal handlers (set once it owns its name; nil while starting).
private final class RunningPortal: Sendable {
    private let value = Mutex<TestPortal?>(nil)
    var portal: TestPortal? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
