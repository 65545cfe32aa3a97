import Foundation
import Testing
@testable import PortalCapture

/// Names in a valid policy that match nothing on this machine: warnings for `pwrecord policy check`, which
/// change no decision.
@Suite("Policy warnings")
struct PolicyWarningTests {
    static let typos = """
        [group:nosuchgroup-pwrecord]
        recording = deny

        [user:nosuchuser-pwrecord]
        recording = deny
        [exe:/no/such/exe]
        recording = deny
        [defaults]
        sinks = encoder,nosuchsink, zz-other
        """

    @Test("unknown users, groups, executables and sinks are warned about with file:line")
    func typosAreWarnings() {
        let policy = Policy.test(Self.typos)
        #expect(policy.problems.isEmpty)
        #expect(policy.warnings(knownSinks: ["encoder", "raw"]) == [
            .unknownGroup(file: "1.conf", line: 1, name: "nosuchgroup-pwrecord"),
            .unknownUser(file: "1.conf", line: 4, name: "nosuchuser-pwrecord"),
            .missingExecutable(file: "1.conf", line: 6, path: "/no/such/exe"),
            .unknownSink(file: "1.conf", line: 9, sink: "nosuchsink", known: ["encoder", "raw"]),
            .unknownSink(file: "1.conf", line: 9, sink: "zz-other", known: ["encoder", "raw"]),
        ])
        #expect(policy.warnings(knownSinks: ["encoder"]).map(\.description) == [
            "1.conf:1: warning: no group 'nosuchgroup-pwrecord' exists, so [group:nosuchgroup-pwrecord] applies to nobody; "
                + "check the name ('getent group nosuchgroup-pwrecord')",
            "1.conf:4: warning: no user 'nosuchuser-pwrecord' exists, so [user:nosuchuser-pwrecord] applies to nobody; "
                + "check the name ('getent passwd nosuchuser-pwrecord')",
            "1.conf:6: warning: /no/such/exe does not exist, so [exe:/no/such/exe] applies to no program; check the path",
            "1.conf:9: warning: unknown sink 'nosuchsink' in 'sinks', so it allows nothing; known sinks: encoder",
            "1.conf:9: warning: unknown sink 'zz-other' in 'sinks', so it allows nothing; known sinks: encoder",
        ])
    }

    @Test("names that exist give no warning")
    func existingNames() {
        let policy = Policy.test("[user:root]\nrecording = deny\n[group:root]\nrecording = deny\n[exe:/bin/sh]\nrecording = deny\n"
                                 + "[app:any.thing]\nsinks = encoder, raw\n")
        #expect(policy.warnings(knownSinks: ["encoder", "raw"]) == [])
    }

    @Test("warnings follow the layers, and a draft file read on its own has them too")
    func layersAndDrafts() {
        let fixture = PolicyFixture()
        fixture.write(fixture.system + "/policy.conf", "[defaults]\nrecording = allow\n[user:nosuchuser-pwrecord]\nrecording = deny")
        fixture.write(fixture.userFile, "[defaults]\nsinks = nosuchsink")
        #expect(fixture.load().warnings(knownSinks: ["encoder"]) == [
            .unknownUser(file: fixture.system + "/policy.conf", line: 3, name: "nosuchuser-pwrecord"),
            .unknownSink(file: fixture.userFile, line: 2, sink: "nosuchsink", known: ["encoder"]),
        ])
        let draft = Policy.draft(file: fixture.userFile)
        #expect(draft.problems.isEmpty && draft.files == [fixture.userFile])
        #expect(draft.warnings(knownSinks: ["encoder"]) == [.unknownSink(file: fixture.userFile, line: 2, sink: "nosuchsink",
                                                                          known: ["encoder"])])
    }
}
