import PortalCapture
import Plugins

extension RecordCommand {
    /// Loads the plugins into `sinks` when a `--sink` names a sink that is not built in, and only then: a plugin
    /// is code that runs inside pwrecord from the moment it is loaded. Before anything is loaded, the policy must
    /// allow every such sink (`sinks = ...`); if it does not, the command ends here (exit 4) and the result is
    /// returned. A refused plugin explains an "unknown sink" error, so refusals are shown as warnings.
    static func loadPlugins(into sinks: inout SinkRegistry, for parsed: ParsedCommand, console: Console) -> ExitCode? {
        let builtIn = Set(sinks.ids)
        let wanted = parsed.all("sink").compactMap { try? SinkSpec(parsing: $0).id }.filter { !builtIn.contains($0) }
        // A bad --app-id or --sink is a usage error `plan` reports before anything happens.
        guard !wanted.isEmpty, let appID = try? (parsed.value("app-id", ValueParsers.appID) ?? "pwrecord") else { return nil }
        let decision: PolicyDecision
        do {
            decision = try PolicyInForce.decision(appID: appID, doing: "recording")
        } catch {
            console.error(error.description, hint: "see 'pwrecord policy explain'")
            return ExitCode(error)
        }
        if let refused = wanted.first(where: { !decision.allowsSink($0) }) {
            console.error(SinkError.notAllowed(id: refused).description, hint: "see 'pwrecord policy explain'")
            return .disabledByPolicy
        }
        let isolation = SinkIsolation().onWaiting { id in console.note("waiting for sink '\(id)' to finish...") }
        let loader = PluginLoader().isolation(isolation).rootInstalledOnly(decision.allowedSinks != nil)
        for problem in sinks.registerPlugins(from: loader) { console.note("warning: \(problem)") }
        return nil
    }
}
