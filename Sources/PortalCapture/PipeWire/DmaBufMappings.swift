import CPipeWire

/// Read-only mappings of a consumer stream's `SPA_DATA_DmaBuf` buffers for the copy path, when no
/// `BufferLender` maps them. `PW_STREAM_FLAG_MAP_BUFFERS` maps only `SPA_DATA_MemFd` in PipeWire 0.3.65
/// (`mappable_dataTypes` in stream.c), so a DMA-BUF's `data` stays NULL and is mapped here (`mmap` of its
/// fd at `mapoffset`, `maxsize` bytes) in `add_buffer`, unmapped in `remove_buffer`.
/// Touched under the owning stream's frame lock only (`add_buffer`/`remove_buffer` on the loop thread, reads in
/// `process`).
final class DmaBufMappings {
    private var mappings: [UnsafeMutablePointer<pw_buffer>: BufferLender.SharedMapping] = [:]

    /// `add_buffer`: maps the buffer's first data when it is a DMA-BUF.
    func add(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let spa = buffer.pointee.buffer, spa.pointee.n_datas > 0 else { return }
        let data = spa.pointee.datas[0]
        guard let access = DmaBufAccess(data),
              let mapping = BufferLender.SharedMapping(fd: access.fd, offset: Int(data.mapoffset),
                                                       size: Int(data.maxsize)) else { return }
        mappings[buffer] = mapping
    }

    /// `remove_buffer`: unmaps it (frames hold copies, never this mapping).
    func remove(_ buffer: UnsafeMutablePointer<pw_buffer>) { mappings[buffer] = nil }

    /// Where `buffer`'s data is mapped here, if it is a mapped DMA-BUF.
    func data(_ buffer: UnsafeMutablePointer<pw_buffer>) -> UnsafeRawPointer? { mappings[buffer]?.data }

    func removeAll() { mappings.removeAll() }
}
