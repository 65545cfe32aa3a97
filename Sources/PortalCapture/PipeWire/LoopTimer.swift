import CPipeWire
import Glibc

/// A timer source on a core's loop (`pw_loop_add_timer`); `action` runs on the loop thread with the loop
/// lock held. Create, schedule, cancel and destroy it with the loop lock held; call `destroy()` before
/// the last reference goes.
final class LoopTimer {
    private let loop: UnsafeMutablePointer<pw_loop>
    private var source: UnsafeMutablePointer<spa_source>?
    private let action: () -> Void

    init(loop: UnsafeMutablePointer<pw_loop>, action: @escaping () -> Void) {
        self.loop = loop
        self.action = action
        source = cpw_loop_add_timer(loop, { data, _ in
            Unmanaged<LoopTimer>.fromOpaque(data!).takeUnretainedValue().action()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Fires after `delay`, then every `interval` (or once when nil) (`pw_loop_update_timer`, relative).
    func schedule(after delay: Duration, every interval: Duration?) {
        guard let source else { return }
        var value = Self.timespec(delay)
        if value.tv_sec == 0 && value.tv_nsec == 0 { value.tv_nsec = 1 }   // 0 would disarm
        var period = Self.timespec(interval ?? .zero)
        _ = cpw_loop_update_timer(loop, source, &value, &period, false)
    }

    /// Disarms the timer.
    func cancel() {
        guard let source else { return }
        var value = Glibc.timespec(), interval = Glibc.timespec()
        _ = cpw_loop_update_timer(loop, source, &value, &interval, false)
    }

    /// Removes the source from the loop (`pw_loop_destroy_source`). Idempotent.
    func destroy() {
        guard let source else { return }
        cpw_loop_destroy_source(loop, source)
        self.source = nil
    }

    deinit { destroy() }

    private static func timespec(_ d: Duration) -> Glibc.timespec {
        let (seconds, attoseconds) = d.components
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    }
}
