import Foundation
import Testing
import Plugins
import CFFmpeg

/// `EncoderSink.disableTransparentHugePages()`: process-wide, so this test turns huge pages back on when it has
/// looked (children started later, such as the `pwrecord` whose own call a CLI test checks, would inherit it).
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
        defer { _ = cav_set_transparent_huge_pages_disabled(0) }
        #expect(EncoderSink.disableTransparentHugePages())
        #expect(try Self.thpEnabled() == "0")
    }
}
