import CPipeWire
import Glibc

/// How many bytes of a buffer's first data can be read from its `mapoffset`: what the producer announced
/// (`maxsize`), held against the memory behind the fd.
///
/// - A memfd shorter than announced would raise SIGBUS on the first read past its end: the size is
///   `fstat`'s, less `mapoffset`, when that is less than `maxsize`.
/// - A DMA-BUF may announce nothing: xdg-desktop-portal-wlr sets `maxsize` 0 (and a placeholder `chunk.size`
///   of 9). Its size is then the fd's, `lseek(fd, 0, SEEK_END)`, which dma-buf supports for exactly this.
/// - Memory PipeWire hands over mapped (`MemPtr`) has no fd to ask: `maxsize` it is.
enum BufferExtent {
    /// The readable bytes, nil when there are none (nothing announced and nothing behind the fd).
    static func readableBytes(_ data: spa_data) -> Int? {
        let announced = Int(data.maxsize)
        let behind: Int?
        switch data.type {
        case SPA_DATA_MemFd.rawValue:
            behind = fileSize(data.fd, seeking: false)
        case SPA_DATA_DmaBuf.rawValue:
            behind = fileSize(data.fd, seeking: true)
        default:
            behind = nil
        }
        guard let behind else { return announced > 0 ? announced : nil }
        let available = behind - Int(data.mapoffset)
        let readable = announced > 0 ? min(announced, available) : available
        return readable > 0 ? readable : nil
    }

    /// The size of the file behind `fd`: `fstat`'s, or with `seeking` (a dma-buf, whose `st_size` the kernel
    /// need not fill) its end by `lseek`. A DMA-BUF has no file position anyone reads by, so moving it is
    /// harmless. Nil when the fd cannot tell.
    private static func fileSize(_ fd: Int64, seeking: Bool) -> Int? {
        guard fd >= 0, fd <= Int64(Int32.max) else { return nil }
        let descriptor = Int32(fd)
        if seeking {
            let end = lseek(descriptor, 0, SEEK_END)
            return end >= 0 ? Int(end) : nil
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
