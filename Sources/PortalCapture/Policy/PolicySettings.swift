

/// The keys one section sets, as parsed (output directories still as written, with `~`).
struct PolicySettings: Sendable, Equatable {
    var recording: PolicySourced<PolicyPermission>?
    var microphone: PolicySourced<PolicyPermission>?
    var systemAudio: PolicySourced<PolicyPermission>?
    var maxDuration: PolicySourced<PolicyLimit>?
    var hours: PolicySourced<PolicyHours>?
    var consentMemory: PolicySourced<PolicyLimit>?
    var sinks: PolicySourced<Set<String>>?
    var outputDirs: PolicySourced<[String]>?

    /// Parses `value` for `key` into these settings, or says what is wrong with it.
    mutating func set(_ key: PolicyKey, _ value: String, source: PolicySourceLine) -> PolicyError? {
        let file = source.file, line = source.line
        func bad(_ expected: String) -> PolicyError {
            .badValue(file: file, line: line, key: key.rawValue, value: value, expected: expected)
        }
        switch key {
        case .recording, .microphone, .systemAudio:
            guard let permission = PolicyPermission(rawValue: value) else { return bad("allow or deny") }
            let sourced = PolicySourced(value: permission, sources: [source])
            switch key {
            case .recording: recording = sourced
            case .microphone: microphone = sourced
            default: systemAudio = sourced
            }
        case .maxDuration, .consentMemory:
            let limit: PolicyLimit
            if value == "unlimited" {
                limit = .unlimited
            } else {
                switch Duration.parsePolicy(value) {
                case .success(let duration):
                    if key == .maxDuration && duration == .zero {
                        return .badDuration(file: file, line: line, key: key.rawValue, value: value,
                                            reason: PolicyDurationProblem.zeroNotAllowed.description)
                    }
                    limit = .limited(duration)
                case .failure(let problem):
                    return .badDuration(file: file, line: line, key: key.rawValue, value: value,
                                        reason: problem.description)
                }
            }
            let sourced = PolicySourced(value: limit, sources: [source])
            if key == .maxDuration { maxDuration = sourced } else { consentMemory = sourced }
        case .hours:
            switch PolicyHours.parse(value) {
            case .success(let parsed): hours = PolicySourced(value: parsed, sources: [source])
            case .failure(let problem): return .badHours(file: file, line: line, value: value, reason: problem.description)
            }
        case .sinks:
            let ids = value.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if ids.contains("") { return bad("a comma-separated list of sink ids, e.g. 'encoder, raw'") }
            // A bad item in a list is named on its own, not the whole list.
            if let item = ids.first(where: { id in
                !id.unicodeScalars.allSatisfy { $0.isASCII && (Self.isASCIIAlphanumeric($0) || "._:-".unicodeScalars.contains($0)) }
            }) {
                return .badValue(file: file, line: line, key: key.rawValue, value: item,
                                 expected: "sink ids (letters, digits and . _ : -) separated by commas, e.g. 'encoder, raw'")
            }
            sinks = PolicySourced(value: Set(ids), sources: [source])
        case .outputDirs:
            let dirs = value.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if let item = dirs.first(where: { !($0.hasPrefix("/") || $0 == "~" || $0.hasPrefix("~/")) }) {
                return .badValue(file: file, line: line, key: key.rawValue, value: item,
                                 expected: "absolute directories or ~/... (not another user's ~NAME) separated by commas, "
                                     + "e.g. '~/Videos, /srv/recordings'")
            }
            outputDirs = PolicySourced(value: dirs, sources: [source])
        }
        return nil
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
