import Foundation
import Synchronization
import Testing
@testable import PortalCapture

@Suite("The delivery thread's wake-up")
struct ThreadWakeupTests {
    @Test("a signal given before the wait lets the wait return at once, one wait per signal")
    func signalsAreCounted() async {
        let wakeup = ThreadWakeup()
        wakeup.signal()
        wakeup.signal()
        let returned = await onThread { () -> Int in
            wakeup.wait()
            wakeup.wait()
            return 2
        }
        #expect(returned == 2)
    }

    @Test("a waiting thread sleeps until it is signalled, and is woken by the signal")
    func waiterWakesOnSignal() async {
        let wakeup = ThreadWakeup()
        let woken = Atomic<Bool>(false)
        let waiter = Task { await onThread { wakeup.wait(); woken.store(true, ordering: .releasing) } }
        try? await Task.sleep(for: .milliseconds(100))
        let early = woken.load(ordering: .acquiring)
        #expect(!early)
        wakeup.signal()
        await waiter.value
        let late = woken.load(ordering: .acquiring)
        #expect(late)
    }
}
