import Foundation

/// What the kernel says about this process: CPU time (`getrusage(RUSAGE_SELF)`, every thread, µs
/// resolution) and memory (`/proc/self/status`).
enum ProcessMeasures {
    /// User + system CPU seconds of every thread of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The memory lines of `/proc/self/status`, in KiB.
    struct Memory: Sendable {
        /// Resident set size (`VmRSS` = `RssAnon + RssFile + RssShmem`).
        var rss = 0
        var anonymous = 0
        var file = 0
        /// Shared memory mapped and touched, e.g. PipeWire's memfd buffers (`RssShmem`).
        var shmem = 0
        /// The highest RSS so far (`VmHWM`).
        var peak = 0
    }

    static func memory() -> Memory {
        var m = Memory()
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return m }
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2, let kib = Int(parts[1]) else { continue }
            switch parts[0] {
            case "VmRSS:": m.rss = kib
            case "RssAnon:": m.anonymous = kib
            case "RssFile:": m.file = kib
            case "RssShmem:": m.shmem = kib
            case "VmHWM:": m.peak = kib
            default: break
            }
        }
        return m
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
