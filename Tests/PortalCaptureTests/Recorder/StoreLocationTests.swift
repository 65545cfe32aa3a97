import Foundation
import Testing
@testable import PortalCapture

/// Under `output-dirs`, kept recordings may stay at their standard place below the passwd home, but a link of
/// the user's there must not carry them outside the allowed folders.
@Suite("The kept recordings' folder under output-dirs")
struct StoreLocationTests {
    static func decision(allowing dir: String) -> PolicyDecision {
        PolicyDecision(reasons: [], microphoneAllowed: true, systemAudioAllowed: true, maxDuration: nil, consentMemory: nil,
                       allowedSinks: nil, allowedOutputDirs: [dir], nextChange: nil)
    }

    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/home/.local/state/pwrecord", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/allowed", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/elsewhere", withIntermediateDirectories: true)
        return path
    }

    @Test("the standard place is allowed as it is, though outside the allowed folders; any place is without output-dirs")
    func standardPlaceAllowed() throws {
        let tmp = try folder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let standard = tmp + "/home/.local/state/pwrecord/recordings"
        #expect(PreflightCheck.storeLocationAllowed(root: standard, standard: standard, Self.decision(allowing: tmp + "/allowed")))
        #expect(!PreflightCheck.storeLocationAllowed(root: tmp + "/elsewhere", standard: standard, Self.decision(allowing: tmp + "/allowed")))
        #expect(PreflightCheck.storeLocationAllowed(root: tmp + "/elsewhere", standard: standard, .unrestricted))
        #expect(PreflightCheck.storeLocationAllowed(root: tmp + "/allowed/r", standard: standard, Self.decision(allowing: tmp + "/allowed")))
    }

    @Test("a link of the user's at the standard place, pointing outside the allowed folders, is refused; root's link is followed")
    func userLinkRefused() throws {
        let tmp = try folder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let standard = tmp + "/home/.local/state/pwrecord/recordings"
        #expect(symlink(tmp + "/elsewhere", standard) == 0)
        // A user's link is the user's own; as root (CI) the test hands it to another user to make it one.
        if geteuid() == 0 { #expect(lchown(standard, 65534, 65534) == 0) }
        #expect(!PreflightCheck.storeLocationAllowed(root: standard, standard: standard, Self.decision(allowing: tmp + "/allowed")))

        guard geteuid() == 0 else { return }
        #expect(lchown(standard, 0, 0) == 0)
        #expect(PreflightCheck.storeLocationAllowed(root: standard, standard: standard, Self.decision(allowing: tmp + "/allowed")),
                "an administrator's link is where the administrator put the folder")
    }

    @Test("a link of the user's at the app's folder in the store, pointing outside the allowed folders, is refused")
    func userLinkAtAppFolderRefused() async throws {
        let tmp = try folder()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let home = tmp + "/home"
        let recordings = home + "/.local/state/pwrecord/recordings"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        #expect(symlink(tmp + "/elsewhere", recordings + "/org.example.Game") == 0)
        if geteuid() == 0 { #expect(lchown(recordings + "/org.example.Game", 65534, 65534) == 0) }
        let decision = Self.decision(allowing: tmp + "/allowed")
        #expect(PreflightCheck.storeLocationAllowed(root: recordings + "/org.example.Other",
                                                    standard: recordings + "/org.example.Other", decision))
        #expect(!PreflightCheck.storeLocationAllowed(root: recordings + "/org.example.Game",
                                                     standard: recordings + "/org.example.Game", decision))
    }
}
