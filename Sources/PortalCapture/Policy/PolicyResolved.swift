/// The settings of one or more sections for one subject, output directories resolved.
struct PolicyResolved: Sendable, Equatable {
    var recording: PolicySourced<PolicyPermission>?
    var microphone: PolicySourced<PolicyPermission>?
    var systemAudio: PolicySourced<PolicyPermission>?
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
        systemAudio = settings.systemAudio
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
        result.systemAudio = policyTighten(systemAudio, other.systemAudio)
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
        result.systemAudio = systemAudio ?? fallback.systemAudio
        result.maxDuration = maxDuration ?? fallback.maxDuration
        result.hours = hours ?? fallback.hours
        result.consentMemory = consentMemory ?? fallback.consentMemory
        result.sinks = sinks ?? fallback.sinks
        result.outputDirs = outputDirs ?? fallback.outputDirs
        return result
    }
}
