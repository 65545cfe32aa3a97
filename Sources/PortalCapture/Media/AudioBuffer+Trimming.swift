extension AudioBuffer {
    /// This chunk without its samples from before `time` (CLOCK_MONOTONIC ns), sample-accurately: the first kept
    /// sample is the one at or just after `time`, and the timestamp moves to it. The whole chunk when it starts
    /// at or after `time`; nil when every sample is before it.
    public func dropping(before time: UInt64) -> AudioBuffer? {
        guard timestamp < time else { return self }
        let rate = UInt64(format.sampleRate)
        guard rate > 0, format.bytesPerFrame > 0 else { return nil }
        // The index of the first sample at or after `time`: ceil((time - timestamp) * rate / 1e9).
        let skip = Int(((time - timestamp) * rate + 999_999_999) / 1_000_000_000)
        guard skip < frameCount else { return nil }
        var copy = self
        copy.bytes = Array(bytes[(skip * format.bytesPerFrame)...])
        copy.timestamp = timestamp + UInt64(skip) * 1_000_000_000 / rate
        return copy
    }
}
