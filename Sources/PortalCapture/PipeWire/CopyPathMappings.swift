import CPipeWire

/// The copy path's view of a consumer stream's fd-backed buffers when no `BufferLender` maps them: where each
/// one's data is and how many bytes of it may be read (`BufferExtent`: a memfd shorter than announced, a
/// DMA-BUF that announces no size).
///
/// `PW_STREAM_FLAG_MAP_BUFFERS` maps only `SPA_DATA_MemFd` in PipeWire 0.3.65 (`mappable_dataTypes` in
/// stream.c), so a DMA-BUF's `data` stays NULL and is mapped here (`mmap` of its fd at `mapoffset`) in
/// `add_buffer`, unmapped in `remove_buffer`; a memfd PipeWire mapped stays its mapping, read no further than
/// its file (one the lender could not take, without `MAP_BUFFERS`, is mapped here too).
/// Touched under the owning stream's frame lock only (`add_buffer`/`remove_buffer` on the loop thread, reads in
/// `process`).
final class CopyPathMappings {
    private struct Entry {
        let data: UnsafeRawPointer
        let readable: Int
        /// Ours, for a DMA-BUF (kept alive here); nil when PipeWire mapped the memfd.
        let mapping: BufferLender.SharedMapping?
    }

    private var entries: [UnsafeMutablePointer<pw_buffer>: Entry] = [:]

    /// `add_buffer`: records the buffer's first data (mapping it when it is a DMA-BUF). False when it is a
    /// DMA-BUF that cannot be mapped: nothing of it can be read, and the stream should stop asking for those.
    @discardableResult
    func add(_ buffer: UnsafeMutablePointer<pw_buffer>) -> Bool {
        guard let spa = buffer.pointee.buffer, spa.pointee.n_datas > 0 else { return true }
        let data = spa.pointee.datas[0]
        let isDmaBuf = data.type == SPA_DATA_DmaBuf.rawValue
        guard isDmaBuf || data.type == SPA_DATA_MemFd.rawValue else { return true }
        // Nothing readable: not recorded, so the frame path skips its frames; a DMA-BUF is refused.
        guard let readable = BufferExtent.readableBytes(data) else { return !isDmaBuf }
        if !isDmaBuf, let mapped = data.data {
            entries[buffer] = Entry(data: UnsafeRawPointer(mapped), readable: readable, mapping: nil)
        } else if data.fd >= 0, data.fd <= Int64(Int32.max),
                  let mapping = BufferLender.SharedMapping(fd: Int32(data.fd), offset: Int(data.mapoffset), size: readable) {
            entries[buffer] = Entry(data: mapping.data, readable: readable, mapping: mapping)
        } else {
            return !isDmaBuf
        }
        return true
    }

    /// `remove_buffer`: forgets it, unmapping a DMA-BUF (frames hold copies, never this mapping).
    func remove(_ buffer: UnsafeMutablePointer<pw_buffer>) { entries[buffer] = nil }

    /// Where `buffer`'s data is readable and how many bytes, if recorded here.
    func readable(_ buffer: UnsafeMutablePointer<pw_buffer>) -> (data: UnsafeRawPointer, bytes: Int)? {
        entries[buffer].map { ($0.data, $0.readable) }
    }

    func removeAll() { entries.removeAll() }
}
