import Foundation
import PortalCapture
import Testing
@testable import pwrecord

/// `pwrecord record` writes through the encoder: a policy whose `sinks` leave it out leaves nothing to record
/// with, and `status` and `policy explain` both say so.
@Suite("The sink pwrecord record writes through")
struct RecordSinkTests {
    static func decision(sinks: Set<String>?, reasons: [PolicyError] = []) -> PolicyDecision {
        PolicyDecision(reasons: reasons, microphoneAllowed: true, systemAudioAllowed: true, maxDuration: nil,
                       consentMemory: nil, allowedSinks: sinks, allowedOutputDirs: nil, nextChange: nil)
    }

    @Test("a policy allowing sinks without the encoder makes pwrecord record unavailable, saying why")
    func withoutEncoder() {
        #expect(RecordSink.unavailableReason(Self.decision(sinks: ["raw", "null"]))
                == "the policy allows only the sinks null, raw, and 'pwrecord record' writes through 'encoder'")
        #expect(RecordSink.unavailableReason(Self.decision(sinks: []))
                == "the policy allows no sink, and 'pwrecord record' writes through 'encoder'")
    }

    @Test("the encoder allowed, any sink allowed, or a decision already unavailable add no reason")
    func noReason() {
        #expect(RecordSink.unavailableReason(Self.decision(sinks: ["encoder", "raw"])) == nil)
        #expect(RecordSink.unavailableReason(Self.decision(sinks: nil)) == nil)
        #expect(RecordSink.unavailableReason(.failedClosed([.unknownUser("x")])) == nil)
    }

    @Test("policy explain with sinks = raw says recording is unavailable and exits 4, as status does")
    func explainWithoutEncoder() async throws {
        let home = try TestHome()
        defer { home.remove() }
        try home.writeUserPolicy("[defaults]\nsinks = raw\n")
        let r = try await Pwrecord.run(["policy", "explain"], environment: home.env)
        #expect(r.status == 4, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("recording is unavailable:\n  the policy allows only the sinks raw, and 'pwrecord record' "
                                  + "writes through 'encoder'\n"), "\(r.stdout)")
        try home.writeUserPolicy("[defaults]\nsinks = raw, encoder\n")
        let allowed = try await Pwrecord.run(["policy", "explain"], environment: home.env)
        #expect(!allowed.stdout.contains("writes through"), "\(allowed.stdout)")
    }
}
