import Foundation

// pwrecord's entry point: parse, validate, run one command, exit with a documented status.
let status = await CommandRunner().run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
