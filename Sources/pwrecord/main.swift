import Foundation

// pwrecord's entry point: parse, validate, run one command, exit with a documented status.

// A reader that goes away (`pwrecord record --sink raw:output=- | head`) is a failing write (EPIPE), which a
// sink reports and the recording ends on, finalized; never a signal that kills the process mid-file.
signal(SIGPIPE, SIG_IGN)
let status = await CommandRunner().run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
