import Glibc

/// `CLOCK_MONOTONIC` now, in nanoseconds: the clock of every timestamp in pwrecord.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
