// pwrecord-bench: the driver of bench/capture/run (issue 4), bench/recording-memory/run (issue 5) and
// bench/encoder/run (issue 6).
// Each subcommand's doc comment says what it measures; the run scripts say how the figures are made.
import Foundation

let usage = """
    usage: pwrecord-bench <command> [options]
      \(ProduceCommand.usage)
      \(ConsumeCommand.usage)
      \(RecordCommand.usage)
      \(FramesCommand.usage)
      \(CopyCostCommand.usage)
      \(EncodeCommand.usage)
      \(DumpCommand.usage)
    """

func fail(_ error: BenchError) -> Never {
    FileHandle.standardError.write(Data("pwrecord-bench: error: \(error)\n".utf8))
    exit(error.exitStatus)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(arguments.dropFirst())

/// Runs the command. The main thread waits for it on a semaphore rather than running an async main: Valgrind
/// (3.19, Debian 12) crashes in an async main's start-up, and bench/capture/footprint runs us under it.
func runCommand() async {
do throws(BenchError) {
    switch arguments.first {
    case "produce": try await ProduceCommand(rest).run()
    case "consume": try await ConsumeCommand(rest).run()
    case "record": try await RecordCommand(rest).run()
    case "frames": try FramesCommand(rest).run()
    case "copycost": try CopyCostCommand(rest).run()
    case "encode": try await EncodeCommand(rest).run()
    case "dump": try await DumpCommand(rest).run()
    case "help", "--help", "-h":
        Output.line(usage)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    fail(error)
}
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    await runCommand()
    done.signal()
}
done.wait()
exit(0)
