import PortalCapture
import Plugins

/// `pwrecord sinks`: every sink a recording can use (built-in and plugins from the trusted plugin
/// directories), with its options and defaults, plus the plugins that were refused and why.
enum SinksCommand {
    static func run(_ parsed: ParsedCommand, console: Console) -> ExitCode {
        var registry = SinkRegistry.standard()
        let rejected = registry.registerPlugins(from: PluginLoader())
        for factory in registry.factories {
            console.out("\(factory.id)  (\(factory.origin))  \(factory.summary)")
            for option in factory.options {
                var line = "    \(option.name)"
                if let choices = option.choices { line += "=" + choices.joined(separator: "|") }
                line += "  \(option.summary)"
                if let d = option.defaultValue { line += " (default: \(d))" }
                console.out(line)
            }
        }
        console.out("\nUse: pwrecord record --sink ID[:key=value,...]   e.g. --sink encoder:output=talk.mp4,container=mp4,crf=20")
        for problem in rejected { console.note("warning: \(problem)") }
        return .success
    }
}
