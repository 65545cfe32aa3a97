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

extension ProcessMeasures {
    /// This process's resident memory by kind of mapping (`/proc/self/smaps`), in KiB, largest first, with
    /// the number of mappings of each kind:
    /// - PipeWire's buffers: the producer's memfds mapped here (`/memfd:` mappings);
    /// - libraries and files: file mappings (code, data, and their copy-on-write pages);
    /// - huge-page allocations: anonymous mappings advised `MADV_HUGEPAGE` (`hg` in VmFlags), which is how
    ///   libx264 allocates its frames (its `x264_malloc` rounds large allocations to 2 MB huge pages);
    /// - large anonymous mappings (4 MB or more resident): the captured frame copies (8.3 MB each at 1080p,
    ///   adjacent ones may share a mapping) and the encoder's converted picture;
    /// - other anonymous memory: malloc arenas, stacks, the Swift runtime.
    static func mappings() -> [(kind: String, kib: Int, count: Int)] {
        guard let text = readProcFile("/proc/self/smaps") else { return [] }
        var totals: [String: (kib: Int, count: Int)] = [:]
        var name = "", rss = 0, started = false
        func close(hugePages: Bool) {
            guard started else { return }
            let kind = name.hasPrefix("/memfd:") ? "PipeWire buffers (memfd)"
                : name.hasPrefix("/") ? "libraries and files"
                : hugePages ? "huge-page allocations (libx264's frames)"
                : name.isEmpty && rss >= 4096 ? "large anonymous mappings (frame copies)"
                : "other anonymous"
            totals[kind, default: (0, 0)].kib += rss
            totals[kind, default: (0, 0)].count += 1
            started = false
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-") && !first.hasSuffix(":") {
                // A mapping's header: "start-end perms offset dev inode [name]".
                name = fields.count > 5 ? String(fields[5]).trimmingCharacters(in: .whitespaces) : ""
                rss = 0
                started = true
            } else if first == "Rss:", fields.count > 1 {
                rss = Int(fields[1]) ?? 0
            } else if first == "VmFlags:" {
                close(hugePages: fields.dropFirst().joined(separator: " ").split(separator: " ").contains("hg"))
            }
        }
        return totals.map { ($0.key, $0.value.kib, $0.value.count) }.sorted { $0.kib > $1.kib }
    }

    /// The whole of a /proc file (its size reads as 0, so it is read to its end).
    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
