/// A value kind the policy can combine: `tightened(with:)` gives the stricter of the two (deny over allow, the
/// shorter limit, the common hours, the common sinks and directories).
protocol PolicyTightening: Sendable, Equatable {
    func tightened(with other: Self) -> Self
}

extension PolicyPermission: PolicyTightening {
    func tightened(with other: PolicyPermission) -> PolicyPermission { self == .deny || other == .deny ? .deny : .allow }
}

extension PolicyLimit: PolicyTightening {
    func tightened(with other: PolicyLimit) -> PolicyLimit {
        switch (self, other) {
        case (.unlimited, _): other
        case (_, .unlimited): self
        case (.limited(let a), .limited(let b)): .limited(min(a, b))
        }
    }
}

extension PolicyHours: PolicyTightening {
    func tightened(with other: PolicyHours) -> PolicyHours { intersection(other) }
}

extension Set<String>: PolicyTightening {
    func tightened(with other: Set<String>) -> Set<String> { intersection(other) }
}

/// Canonical directories; tightening keeps what lies inside both lists (`/home/a` and `/home/a/Videos` give
/// `/home/a/Videos`; unrelated directories give nothing).
struct PolicyDirectories: PolicyTightening {
    var paths: [String]

    func tightened(with other: PolicyDirectories) -> PolicyDirectories {
        var result: [String] = []
        for path in paths where other.paths.contains(where: { PolicyPath.isInside(path, $0) }) {
            if !result.contains(path) { result.append(path) }
        }
        for path in other.paths where paths.contains(where: { PolicyPath.isInside(path, $0) }) {
            if !result.contains(path) { result.append(path) }
        }
        return PolicyDirectories(paths: result)
    }
}

/// The stricter of two sourced values; the sources are those of the value that won, or of both when both
/// made the result.
func policyTighten<T: PolicyTightening>(_ a: PolicySourced<T>?, _ b: PolicySourced<T>?) -> PolicySourced<T>? {
    guard let a else { return b }
    guard let b else { return a }
    let value = a.value.tightened(with: b.value)
    let sources: [PolicySourceLine]
    if value == a.value && value != b.value {
        sources = a.sources
    } else if value == b.value && value != a.value {
        sources = b.sources
    } else {
        sources = a.sources + b.sources.filter { !a.sources.contains($0) }
    }
    return PolicySourced(value: value, sources: sources)
}

/// The settings of one or more sections for one subject, output directories resolved.
struct PolicyResolved: Sendable, Equatable {
    var recording: PolicySourced<PolicyPermission>?
    var microphone: PolicySourced<PolicyPermission>?
    var maxDuration: PolicySourced<PolicyLimit>?
    var hours: PolicySourced<PolicyHours>?
    var consentMemory: PolicySourced<PolicyLimit>?
    var sinks: PolicySourced<Set<String>>?
    var outputDirs: PolicySourced<PolicyDirectories>?

    static let empty = PolicyResolved()

    init() {}

    init(_ settings: PolicySettings, subject: PolicySubject) {
        recording = settings.recording
        microphone = settings.microphone
        maxDuration = settings.maxDuration
        hours = settings.hours
        consentMemory = settings.consentMemory
        sinks = settings.sinks
        outputDirs = settings.outputDirs.map { written in
            // A directory that cannot be resolved (unknown home, dangling symlink) allows nothing.
            let paths = written.value.compactMap { PolicyPath.resolveDirectory($0, home: subject.home) }
            return PolicySourced(value: PolicyDirectories(paths: paths), sources: written.sources)
        }
    }

    /// Key by key, the stricter of both (a key only one of them sets is taken as it is).
    func tightened(with other: PolicyResolved) -> PolicyResolved {
        var result = PolicyResolved()
        result.recording = policyTighten(recording, other.recording)
        result.microphone = policyTighten(microphone, other.microphone)
        result.maxDuration = policyTighten(maxDuration, other.maxDuration)
        result.hours = policyTighten(hours, other.hours)
        result.consentMemory = policyTighten(consentMemory, other.consentMemory)
        result.sinks = policyTighten(sinks, other.sinks)
        result.outputDirs = policyTighten(outputDirs, other.outputDirs)
        return result
    }

    /// Key by key, this value, or `fallback`'s where this one does not set the key.
    func filling(from fallback: PolicyResolved) -> PolicyResolved {
        var result = self
        result.recording = recording ?? fallback.recording
        result.microphone = microphone ?? fallback.microphone
        result.maxDuration = maxDuration ?? fallback.maxDuration
        result.hours = hours ?? fallback.hours
        result.consentMemory = consentMemory ?? fallback.consentMemory
        result.sinks = sinks ?? fallback.sinks
        result.outputDirs = outputDirs ?? fallback.outputDirs
        return result
    }
}

extension PolicyDocument {
    /// What this one file says for `subject`, key by key:
    /// - "who": a matching `[user:]` section, else the stricter of all matching `[group:]` sections;
    /// - "what": the stricter of a matching `[app:]` and `[exe:]` section;
    /// - both who and what apply (the stricter wins); `[defaults]` only for keys neither sets.
    func resolved(for subject: PolicySubject) -> PolicyResolved {
        var defaults = PolicyResolved.empty, groups = PolicyResolved.empty, user = PolicyResolved.empty
        var app = PolicyResolved.empty, exe = PolicyResolved.empty
        for entry in sections {
            let settings = PolicyResolved(entry.settings, subject: subject)
            switch entry.section {
            case .defaults:
                defaults = settings
            case .group(let name) where subject.groups.contains(name):
                groups = groups.tightened(with: settings)
            case .user(let name) where name == subject.user:
                user = settings
            case .app(let id) where id == subject.appID:
                app = settings
            case .executable(let path) where Self.executable(subject.executable, matches: path):
                exe = settings
            default:
                break
            }
        }
        let who = user.filling(from: groups)
        let what = app.tightened(with: exe)
        return who.tightened(with: what).filling(from: defaults)
    }

    static func executable(_ running: String?, matches written: String) -> Bool {
        guard let running else { return false }
        return running == written || PolicyPath.realPath(written) == running
    }
}
