import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The admin recording policy: the system files, then the user's file, read and checked.
///
/// Layers, in order: `<system>/policy.conf`, `<system>/policy.d/*.conf` (byte order, hidden files skipped), then
/// the user file. Each layer is resolved for the subject on its own (see `PolicyDocument.resolved(for:)` and
/// docs/policy.md), then the layers are combined so that each may only tighten: deny over allow, the shortest
/// duration, the common hours, the common sinks and directories.
///
/// A missing system directory means no restrictions. Any problem (see `problems`) makes every decision
/// unavailable.
public struct Policy: Sendable {
    /// The parsed files, in layer order.
    public let documents: [PolicyDocument]
    /// Everything wrong with the files (owner, permissions, unreadable, syntax), in layer order.
    public let problems: [PolicyError]

    /// A policy from already parsed documents, in layer order; `fileProblems` are problems found while reading
    /// them (documents' own problems are added).
    public init(documents: [PolicyDocument], fileProblems: [PolicyError] = []) {
        self.documents = documents
        var problems = fileProblems
        for document in documents {
            problems += document.problems.filter { !problems.contains($0) }
        }
        self.problems = problems
    }

    /// No files at all: everything allowed.
    public static let unrestricted = Policy(documents: [])

    /// The files that were read, in layer order.
    public var files: [String] { documents.map(\.file) }

    /// Reads the policy from `locations`. Never throws: problems are kept in `problems` and make decisions
    /// unavailable.
    public static func load(_ locations: PolicyLocations = PolicyLocations()) -> Policy {
        var documents: [PolicyDocument] = []
        var problems: [PolicyError] = []
        let system = PolicyFileReader(trustedOwner: locations.trustedOwner)

        let root = system.openDirectory(locations.systemDirectory)
        problems += root.problems
        if root.fd >= 0 {
            defer { close(root.fd) }
            let main = system.readFile(locations.systemFile, in: root.fd, name: "policy.conf", missingIsFine: true)
            documents += main.document.map { [$0] } ?? []
            problems += main.problems

            let dropIns = system.openDirectory(locations.dropInDirectory, in: root.fd, name: "policy.d")
            problems += dropIns.problems
            if dropIns.fd >= 0 {
                defer { close(dropIns.fd) }
                let listing = system.dropInNames(dropIns.fd, path: locations.dropInDirectory)
                problems += listing.problems
                for name in listing.names {
                    let file = system.readFile(locations.dropInDirectory + "/" + name, in: dropIns.fd, name: name,
                                               missingIsFine: false)
                    documents += file.document.map { [$0] } ?? []
                    problems += file.problems
                }
            }
        }

        if let userFile = locations.userFile {
            let user = PolicyFileReader(trustedOwner: nil).readFile(userFile, missingIsFine: true)
            documents += user.document.map { [$0] } ?? []
            problems += user.problems
        }
        return Policy(documents: documents, fileProblems: problems)
    }

    /// Checks one file without installing it, for `pwrecord policy check FILE`: readable, UTF-8, valid syntax
    /// and values; with `trustedOwner`, also owned by that uid and not group/world-writable (as a system file
    /// must be).
    public static func check(file path: String, trustedOwner: UInt32? = nil) -> [PolicyError] {
        draft(file: path, trustedOwner: trustedOwner).problems
    }

    /// One file read as a policy of its own, checked as `check(file:trustedOwner:)` does: its `problems`, and its
    /// document for `warnings(knownSinks:)`.
    public static func draft(file path: String, trustedOwner: UInt32? = nil) -> Policy {
        let read = PolicyFileReader(trustedOwner: trustedOwner).readFile(path, missingIsFine: false)
        return Policy(documents: read.document.map { [$0] } ?? [], fileProblems: read.problems)
    }

    /// What the policy says, layer by layer tightened, for `subject` (before looking at the time).
    func resolved(for subject: PolicySubject) -> PolicyResolved {
        documents.reduce(PolicyResolved.empty) { $0.tightened(with: $1.resolved(for: subject)) }
    }

    /// The decision for `subject` at `date`, with `hours` read in `timeZone`.
    public func decision(for subject: PolicySubject, at date: Date = Date(),
                         timeZone: TimeZone = .policySystem) -> PolicyDecision {
        let (confirmed, groupProblems) = confirmingGroups(of: subject)
        return decision(from: resolved(for: confirmed), at: date, timeZone: timeZone, groupProblems: groupProblems)
    }

    /// The decision from what the layers say; any of the files' problems or `groupProblems` fails it closed.
    /// `environment` is only asked whether something redirects the time-zone rules `hours` are read with
    /// (`TimeZone.policyRuleOverrides`); when something does, `hours` cannot be checked and the decision is no.
    func decision(from resolved: PolicyResolved, at date: Date, timeZone: TimeZone,
                  groupProblems: [PolicyError] = [],
                  environment: [String: String] = ProcessInfo.processInfo.environment) -> PolicyDecision {
        if !problems.isEmpty || !groupProblems.isEmpty { return .failedClosed(problems + groupProblems) }
        var reasons: [PolicyError] = []
        if let recording = resolved.recording, recording.value == .deny {
            reasons += recording.sources.map { .recordingDenied($0) }
        }
        if let hours = resolved.hours {
            let overrides = TimeZone.policyRuleOverrides(environment: environment)
            if !overrides.isEmpty {
                reasons.append(.timeZoneRulesOverridden(variables: overrides, lines: hours.sources))
            } else if !hours.value.contains(date, in: timeZone) {
                reasons.append(.outsideHours(allowed: hours.value, lines: hours.sources))
            }
        }
        return PolicyDecision(
            reasons: reasons,
            microphoneAllowed: resolved.microphone?.value != .deny,
            systemAudioAllowed: resolved.systemAudio?.value != .deny,
            maxDuration: resolved.maxDuration?.value.duration,
            consentMemory: resolved.consentMemory?.value.duration,
            allowedSinks: resolved.sinks?.value,
            allowedOutputDirs: resolved.outputDirs?.value.paths,
            nextChange: resolved.hours?.value.nextBoundary(after: date, in: timeZone))
    }

    /// The decision with the lines that made each part of it, for `pwrecord policy explain`.
    public func explain(for subject: PolicySubject, at date: Date = Date(),
                        timeZone: TimeZone = .policySystem) -> PolicyExplanation {
        let (confirmed, groupProblems) = confirmingGroups(of: subject)
        let subject = confirmed
        let resolved = resolved(for: subject)
        let decision = decision(from: resolved, at: date, timeZone: timeZone, groupProblems: groupProblems)
        func part<T>(_ key: PolicyKey, _ sourced: PolicySourced<T>?, _ text: (T) -> String,
                     default fallback: String) -> PolicyExplanation.Part {
            PolicyExplanation.Part(key: key, value: sourced.map { text($0.value) } ?? fallback,
                                   lines: sourced?.sources ?? [])
        }
        guard problems.isEmpty && groupProblems.isEmpty else {
            // Failing closed: show what the decision allows (nothing), not the values the broken lines hold.
            func permission(_ allowed: Bool) -> String { allowed ? "allow" : "deny" }
            func none(_ items: [String]?) -> String { items.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "any" }
            let values: [(PolicyKey, String)] = [
                (.recording, permission(decision.isAvailable)),
                (.microphone, permission(decision.microphoneAllowed)),
                (.systemAudio, permission(decision.systemAudioAllowed)),
                (.maxDuration, decision.maxDuration?.policyDescription ?? "unlimited"),
                (.hours, PolicyHours.never.description),
                (.consentMemory, decision.consentMemory?.policyDescription ?? "unlimited"),
                (.sinks, none(decision.allowedSinks?.sorted())),
                (.outputDirs, none(decision.allowedOutputDirs)),
            ]
            return PolicyExplanation(subject: subject, date: date, timeZone: timeZone, files: files, decision: decision,
                                     parts: values.map { PolicyExplanation.Part(key: $0.0, value: $0.1, lines: []) },
                                     failedClosed: true)
        }
        let parts = [
            part(.recording, resolved.recording, \.rawValue, default: "allow"),
            part(.microphone, resolved.microphone, \.rawValue, default: "allow"),
            part(.systemAudio, resolved.systemAudio, \.rawValue, default: "allow"),
            part(.maxDuration, resolved.maxDuration, \.policyDescription, default: "unlimited"),
            part(.hours, resolved.hours, \.description, default: "always"),
            part(.consentMemory, resolved.consentMemory, \.policyDescription, default: "unlimited"),
            part(.sinks, resolved.sinks, { $0.sorted().joined(separator: ", ") }, default: "any"),
            part(.outputDirs, resolved.outputDirs, { $0.paths.isEmpty ? "none" : $0.paths.joined(separator: ", ") },
                 default: "any"),
        ]
        return PolicyExplanation(subject: subject, date: date, timeZone: timeZone, files: files,
                                 decision: decision, parts: parts, failedClosed: false)
    }
}
