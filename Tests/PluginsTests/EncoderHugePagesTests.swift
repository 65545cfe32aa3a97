import Foundation
import Testing
import Plugins
import CFFmpeg
import PortalTestSupport

/// `EncoderSink.disableTransparentHugePages()`: process-wide, so this test turns huge pages back on when it has
/// looked (children started later, such as the `pwrecord` whose own call a CLI test checks, would inherit it).
@Suite("Encoder huge pages")
struct EncoderHugePagesTests {
    @Test("turning transparent huge pages off shows in this process's status, THP_enabled 0")
    func disablesForTheProcess() throws {
        defer { _ = cav_set_transparent_huge_pages_disabled(0) }
        #expect(EncoderSink.disableTransparentHugePages())
        // `THP_enabled` (Linux 5.0 and later): 1 unless `PR_SET_THP_DISABLE` is set.
        #expect(ProcessStatus.field("THP_enabled") == "0")
    }
}
