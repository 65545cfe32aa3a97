import Foundation
import PortalCapture
import Plugins

/// `pwrecord policy check [FILE]` and `pwrecord policy explain [--user U] [--app A] [--at TIME]`.
enum PolicyCommands {
    /// Validates one file (as a system file: root-owned, not writable by others) or, without a file, the
    /// whole system policy plus the user's file. Prints `file:line: what` per problem; exit 1 when any. Names
    /// that match nothing here (users, groups, executables, sinks) are printed as `file:line: warning: ...`;
    /// they change no decision, so with warnings only the exit status is still 0.
    static func check(_ parsed: ParsedCommand, console: Console) throws(CommandLineError) -> ExitCode {
        let policy: Policy
        let what: String
        if let file = parsed.positionals.first {
            policy = Policy.draft(file: file, trustedOwner: 0)
            what = file
        } else {
            policy = Policy.load()
            what = policy.files.isEmpty ? "the policy (no files: no restrictions)" : policy.files.joined(separator: ", ")
        }
        let problems = policy.problems
        let warnings = policy.warnings(knownSinks: knownSinks())
        for w in warnings { console.out(w.description) }
        if problems.isEmpty {
            let noted = warnings.isEmpty ? "" : " (\(warnings.count) warning\(warnings.count == 1 ? "" : "s"): the policy works as written)"
            console.out("\(what): ok\(noted)")
            return .success
        }
        for p in problems { console.out(p.description) }
        console.error("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; recording stays unavailable until they are fixed")
        return .failure
    }

    /// The sink ids a policy may name: those `pwrecord sinks` lists (built-in and the plugins found), and
    /// `callback`, which apps using the framework register.
    static func knownSinks() -> Set<String> {
        var registry = SinkRegistry.standard()
        _ = registry.registerPlugins(from: PluginLoader())
        return Set(registry.factories.map(\.id) + ["callback"])
    }

    /// Prints the decision for a user, app and time with the lines that made it. Exit 0 when recording
    /// would be available, 4 when the policy disables it.
    static func explain(_ parsed: ParsedCommand, console: Console) throws(CommandLineError) -> ExitCode {
        let at = try parsed.value("at") { s throws(ValueError) in try parseTime(s, now: Date()) } ?? Date()
        let app = try parsed.value("app", ValueParsers.appID) ?? "pwrecord"
        let exe = parsed.value("exe")
        if let exe, !exe.hasPrefix("/") {
            throw CommandLineError(reason: .invalidValue(option: "--exe", value: exe, reason: "give an absolute path, e.g. /usr/bin/obs"),
                                   commandPath: parsed.path)
        }
        let subject: PolicySubject
        let current: PolicySubject
        do throws(PolicyError) {
            // The executable is resolved as the policy resolves its [exe:PATH] sections (symlinks followed).
            // Without --exe, pwrecord's own executable, whoever the user: [exe:] sections apply as for `record`.
            current = try PolicySubject.current(appID: app)
            if let user = parsed.value("user") {
                subject = try PolicySubject.lookup(user: user, appID: app, executable: exe ?? current.executable)
            } else if let exe {
                subject = try PolicySubject.lookup(user: current.user, appID: app, executable: exe)
            } else {
                subject = current
            }
        } catch {
            // Only a user that is not there is a bad --user; a group database that fails fails closed (exit 4).
            guard case .unknownUser = error, let user = parsed.value("user") else {
                console.error(error.description, hint: "see 'getent group' and nsswitch.conf")
                return ExitCode(RecordingError.disabled(reason: error.description))
            }
            throw CommandLineError(reason: .invalidValue(option: "--user", value: user, reason: error.description),
                                   commandPath: parsed.path)
        }
        // Another user's decision takes their own user file, not the caller's: the one in their passwd home
        // (their XDG_CONFIG_HOME, if they set one, is not known here).
        let locations = subject.user == current.user
            ? PolicyLocations()
            : PolicyLocations(userFile: subject.home.map { $0 + "/.config/pwrecord/policy.conf" })
        var explanation = Policy.load(locations).explain(for: subject, at: at)
        // As `status` says: what the policy allows must include the sink `pwrecord record` writes through.
        if let reason = RecordSink.unavailableReason(explanation.decision) { explanation.otherReasons.append(reason) }
        console.out(explanation.description)
        return explanation.isAvailable ? .success : .disabledByPolicy
    }

    /// `HH:MM` today or `YYYY-MM-DDTHH:MM`, read in `timeZone` (the policy's system time zone). A time the
    /// clocks skip there (the hour daylight saving time starts) is refused as such, not as a bad format.
    static func parseTime(_ s: String, now: Date, timeZone: TimeZone = .policySystem) throws(ValueError) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var wanted: DateComponents
        let dateAndTime = s.split(separator: "T", omittingEmptySubsequences: false)
        let clock = dateAndTime.last.map { $0.split(separator: ":", omittingEmptySubsequences: false) } ?? []
        guard dateAndTime.count <= 2, clock.count == 2,
              clock.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(clock[0]), let m = Int(clock[1]), (0..<24).contains(h), (0..<60).contains(m)
        else { throw ValueError("expected HH:MM or YYYY-MM-DDTHH:MM") }
        if dateAndTime.count == 2 {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = "yyyy-MM-dd"
            guard let day = formatter.date(from: String(dateAndTime[0])) else {
                throw ValueError("expected HH:MM or YYYY-MM-DDTHH:MM")
            }
            wanted = calendar.dateComponents([.year, .month, .day], from: day)
        } else {
            wanted = calendar.dateComponents([.year, .month, .day], from: now)
        }
        wanted.hour = h
        wanted.minute = m
        // A wall-clock time that does not exist comes back moved (02:30 as 03:30): it is not the time asked for.
        guard let date = calendar.date(from: wanted), calendar.component(.day, from: date) == wanted.day,
              calendar.component(.hour, from: date) == h, calendar.component(.minute, from: date) == m
        else {
            throw ValueError("\(s) does not exist in \(timeZone.identifier): the clocks skip it when daylight saving time "
                             + "starts; give a time outside that gap")
        }
        return date
    }
}
