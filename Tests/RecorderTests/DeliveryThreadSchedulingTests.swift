import Foundation
import Glibc
import Synchronization
import Testing
@testable import PortalCapture
import Plugins
import PortalTestSupport

/// `ScreenRecorderConfiguration.deliveryThreadScheduling` reaches the recording's delivery thread: the thread
/// every sink is called on.
@Suite("The recording's delivery thread scheduling", .enabled(if: TestDesktop.isAvailable), .serialized)
struct DeliveryThreadSchedulingTests {
    /// Notes the scheduling policy of the thread each video frame reaches it on.
    final class PolicySpy: CaptureSink, @unchecked Sendable {
        let id = "policy-spy"
        let policies = Mutex<Set<Int32>>([])
        func open(_ context: SinkContext) throws(SinkError) {}
        func consume(_ sample: CaptureSample) throws(SinkError) {
            guard case .video = sample else { return }
            policies.withLock { _ = $0.insert(sched_getscheduler(0)) }
        }
        func close() throws(SinkError) -> SinkResult { SinkResult() }
    }

    @Test("a recording configured with .batch calls its sinks on a SCHED_BATCH thread; by default it does not",
          arguments: [DeliveryThreadScheduling.batch, .inherited])
    func recordingHonoursTheScheduling(_ scheduling: DeliveryThreadScheduling) async throws {
        let spy = PolicySpy()
        let h = try RecorderHarness { c in
            try? c.sinks.register(SinkFactory(id: "policy-spy", summary: "notes the delivery thread's policy") { _ throws(SinkError) in spy })
            c.deliveryThreadScheduling = scheduling
        }
        #expect(ScreenRecorderConfiguration(provider: h.provider, sinks: SinkRegistry()).deliveryThreadScheduling == .inherited)
        try await h.recorder.startRecording(RecordingOptions().sinks(["policy-spy"]).maxDuration(10))
        #expect(await eventually(timeout: .seconds(5)) { !spy.policies.withLock { $0.isEmpty } }, "no frame reached the sink")
        _ = try? await h.recorder.stopRecording()
        let policies = spy.policies.withLock { $0 }
        #expect(!policies.isEmpty)
        #expect(policies.allSatisfy { ($0 == DeliveryThreadScheduling.batchPolicy) == (scheduling == .batch) }, "\(policies)")
    }
}
