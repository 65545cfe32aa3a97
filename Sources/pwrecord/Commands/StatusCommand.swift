import Foundation
import PortalCapture
import Plugins

/// `pwrecord status [--json]`: whether recording is available now, and every reason it is not.
enum StatusCommand {
    static func run(_ parsed: ParsedCommand, console: Console) async throws(CommandLineError) -> ExitCode {
        let appID = try parsed.value("app-id", ValueParsers.appID) ?? "pwrecord"
        // Only availability and the policy are asked for: no sink is made, so no plugin is loaded (its code would run).
        let recorder = ScreenRecorder.standard(appID: appID, provider: Providers.screenCast(), plugins: nil)
        var availability = await recorder.refreshAvailability()
        let decision = recorder.policyDecision
        // What the policy says of a plain `pwrecord record` beyond "recording now": its sink (worded as
        // `policy explain` words it), then the rest the recorder checks before consent (the kept recordings'
        // folder). A broken or denying policy's own reasons say why, and are enough.
        if let reason = RecordSink.unavailableReason(decision) {
            availability.reasons.append(.policy(reason))
        } else if decision.isAvailable, case .disabled(let reason)? = recorder.policyRefusal(for: RecordingOptions()) {
            availability.reasons.append(.policy(reason))
        }
        if parsed.flag("json") {
            var object: [String: Any] = [
                "available": availability.isAvailable,
                "appID": appID,
                "reasons": availability.reasons.map { reason -> [String: String] in
                    switch reason {
                    case .policy(let s): ["kind": "policy", "message": s]
                    case .portal(let s): ["kind": "portal", "message": s]
                    case .pipewire(let s): ["kind": "pipewire", "message": s]
                    }
                },
                "microphoneAllowed": decision.microphoneAllowed,
                "systemAudioAllowed": decision.systemAudioAllowed,
            ]
            if let d = decision.maxDuration { object["maxDurationSeconds"] = Double(d.components.seconds) }
            if let s = decision.allowedSinks { object["allowedSinks"] = s.sorted() }
            if let next = decision.nextChange { object["policyChangesAt"] = ISO8601DateFormatter().string(from: next) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()
            console.out(String(decoding: data, as: UTF8.self))
        } else {
            console.out("recording is \(availability.isAvailable ? "available" : "unavailable")")
            for reason in availability.reasons { console.out("  \(reason)") }
            console.out("microphone: \(decision.microphoneAllowed ? "allowed" : "not allowed by policy")")
            console.out("system audio: \(decision.systemAudioAllowed ? "allowed" : "not allowed by policy")")
        }
        return ExitCode(unavailable: availability) ?? .success
    }
}
