import Foundation

/// Enter pressed on the terminal, read on a thread of its own: `readLine` blocks in `read(0)`, and on one of
/// Swift's few cooperative threads (two on a two-core machine) it starved the tasks that watch the signals and
/// the idle stop, so only Enter could end a long screenshot. The thread stays blocked in `read` until a line
/// or end of input comes; it ends with the process.
final class EnterKey: Sendable {
    private let lines: AsyncStream<Bool>

    /// Starts reading when standard input is a terminal; otherwise (a script's file or pipe holds no keypress
    /// to wait for) `pressed()` never returns true.
    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        lines = stream
        guard isatty(STDIN_FILENO) != 0 else {
            continuation.finish()
            return
        }
        let thread = Thread {
            continuation.yield(readLine() != nil)   // nil: end of input, not Enter
            continuation.finish()
        }
        thread.name = "pwrecord-enter-key"
        thread.start()
    }

    /// Waits for Enter: true when it was pressed, false at end of input or when there is no terminal. Returns
    /// when the calling task is cancelled.
    func pressed() async -> Bool {
        for await line in lines { return line }
        return false
    }
}
