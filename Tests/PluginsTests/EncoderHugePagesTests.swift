import Foundation
import Testing
import Plugins

/// `EncoderSink.disableTransparentHugePages()`: process-wide, so this test turns huge pages off for the whole
/// test process (nothing else here depends on them).
@Suite("Encoder huge pages")
struct EncoderHugePagesTests {
    /// `THP_enabled` from /proc/self/status (Linux 5.0 and later): 1 unless `PR_SET_THP_DISABLE` is set.
    static func thpEnabled() throws -> String? {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        return status.split(separator: "\n").first { $0.hasPrefix("THP_enabled:") }
            .map { String($0.dropFirst("THP_enabled:".count)).trimmingCharacters(in: .whitespaces) }
    }

    @Test("turning transparent huge pages off shows in this process's status, THP_enabled 0")
    func disablesForTheProcess() throws {
        #expect(EncoderSink.disableTransparentHugePages())
        #expect(try Self.thpEnabled() == "0")
    }
}
