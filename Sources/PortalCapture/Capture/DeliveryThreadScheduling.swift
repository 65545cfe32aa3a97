import Glibc

/// How the kernel schedules a `DeliveryQueue`'s delivery thread. Threads started from it inherit the policy:
/// an isolated sink's thread, an encoder's worker threads, and the libdispatch and Swift concurrency workers
/// that happen to be created while the delivery thread enqueues work (a test run that captured audio ended
/// with at least ten of the process's `root.default-qos` workers `SCHED_BATCH`). That is why `.batch` is not
/// the default: a library must not change how its host's thread pools are scheduled. A process that records
/// and little else can choose it.
public enum DeliveryThreadScheduling: Sendable, Hashable {
    /// `SCHED_BATCH`: the same share of the processor as any thread of its niceness, but its wake-ups do not
    /// preempt the running thread. The frame path wakes the delivery thread from PipeWire's data thread in
    /// every cycle; under the normal policy the woken thread preempted the data thread on its own processor
    /// in most cycles (35 involuntary context switches a second at 60 fps; 1 with this), and
    /// the data thread finished its cycle only after it. The sinks get each frame once the data thread is done
    /// with its cycle, microseconds later. CPU per frame: 1–4% less in runs of four consumers against four
    /// (bench/README.md, capture).
    case batch
    /// The policy of the thread that created the queue (normally `SCHED_OTHER`). The default.
    case inherited

    /// `SCHED_BATCH` from <linux/sched.h> (glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc
    /// module is not built with).
    static let batchPolicy: Int32 = 3

    /// Applies the policy to the calling thread. Best effort: when the kernel refuses (a sandbox's seccomp
    /// filter, say), the thread keeps its policy and works as before.
    func apply() {
        guard case .batch = self else { return }
        var param = sched_param()
        param.sched_priority = 0
        // On Linux, pid 0 is the calling thread (not the whole process).
        _ = sched_setscheduler(0, Self.batchPolicy, &param)
    }
}
