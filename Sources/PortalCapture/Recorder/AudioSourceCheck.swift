/// Which PipeWire node a recording's microphone or system audio reads, checked against what it claims to be.
///
/// The policy's `microphone` and `system-audio` rules are about what is heard, not about which option asked
/// for it: a node named with `--system-audio-node` that is really a microphone (or a microphone node that is
/// really an output's monitor) must not slip past a `deny`. A named node is looked up in the registry and
/// must be of the kind asked for (by `media.class`); the stream is then connected to that very node (its
/// `object.serial`), so no node appearing later under the same name is read instead. The default targets
/// are WirePlumber's default source and the default sink's monitor, of the right kind by construction.
struct AudioSourceCheck {
    enum Kind {
        case microphone, systemAudio

        var option: String { self == .microphone ? "microphone node" : "system audio node" }
        /// What a node of this kind is, to a user.
        var heard: String { self == .microphone ? "a microphone" : "what the desktop plays" }
        /// What a recording of this kind asks of the policy, with its key.
        var policyRule: String { self == .microphone ? "the microphone (microphone = deny)" : "system audio (system-audio = deny)" }
        /// The other kind.
        var other: Kind { self == .microphone ? .systemAudio : .microphone }

        func isAllowed(by decision: PolicyDecision) -> Bool {
            self == .microphone ? decision.microphoneAllowed : decision.systemAudioAllowed
        }

        /// Whether a node of `mediaClass` is what this kind reads: a source for the microphone, an output (whose
        /// monitor is read) for system audio.
        func accepts(_ mediaClass: String) -> Bool {
            switch self {
            case .microphone: mediaClass.hasPrefix("Audio/Source") || mediaClass == "Audio/Duplex"
            case .systemAudio: mediaClass.hasPrefix("Audio/Sink")
            }
        }
    }

    /// How long a named node may take to show up in a new connection's registry.
    var timeout: Duration = .seconds(2)

    /// The target to connect for `node` (nil: the default one), after checking it. A node of the other kind
    /// is `disabled` when the policy denies that kind, else `invalidParameter`; a node that is not there, or
    /// is no audio node at all, is `invalidParameter`.
    func target(_ kind: Kind, node: String?, core: PipeWireCore, decision: PolicyDecision) async throws(RecordingError) -> PipeWireTarget {
        guard let node else { return .default }
        let found: PipeWireNodeInfo
        do {
            found = try await core.waitForNode(timeout: timeout) { $0.name == node || $0.serial.map(String.init) == node }
        } catch {
            throw .invalidParameter("\(kind.option) '\(node)': no PipeWire node has that name or serial; "
                + "'pw-cli ls Node' lists them (node.name)")
        }
        let mediaClass = found.mediaClass ?? "none"
        guard !kind.accepts(mediaClass) else {
            // By serial, so that only this node is read; PipeWire 0.3.65 gives every node one.
            guard let serial = found.serial else {
                throw .invalidParameter("\(kind.option) '\(node)': the node has no object.serial to connect to it by")
            }
            return .object(String(serial))
        }
        let other = kind.other
        if other.accepts(mediaClass) && !other.isAllowed(by: decision) {
            throw .disabled(reason: "\(kind.option) '\(node)' is \(other.heard) (media.class \(mediaClass)), and the "
                + "policy does not allow recording \(other.policyRule)")
        }
        let wanted = kind == .microphone ? "a microphone (Audio/Source)" : "an output (Audio/Sink)"
        throw .invalidParameter("\(kind.option) '\(node)' is media.class \(mediaClass), not \(wanted)"
            + (other.accepts(mediaClass) ? "; name it as the \(other.option) instead" : ""))
    }
}
