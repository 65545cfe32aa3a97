import CPipeWire
import Glibc

/// CPU reads of a `SPA_DATA_DmaBuf` buffer's mapping, bracketed by `DMA_BUF_IOCTL_SYNC`
/// (`DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ` before, `DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ` after), as the
/// kernel's dma-buf documentation asks of every mmap access: it makes the device's writes visible to the CPU.
///
/// Only DMA-BUFs negotiated with the linear modifier are mapped (`DRMFormatModifier.isLinear`); any other
/// layout is refused during negotiation, so the rows read here are the picture's rows.
///
/// Tested without a GPU: the test producer hands out memfds labelled `SPA_DATA_DmaBuf` (a memfd maps like a
/// linear DMA-BUF). The ioctl fails on them with `ENOTTY`, which is `.notDmaBuf` here: plain memory needs no
/// sync, and the read goes on. A real DMA-BUF's sync path (and a driver's `EINVAL`/`EFAULT`) is untested.
struct DmaBufAccess: Sendable {
    let fd: Int32

    enum Sync: Equatable, Sendable {
        /// The kernel synced the buffer for the CPU.
        case synced
        /// The fd is not a DMA-BUF (`ENOTTY`: a memfd standing in for one); nothing to sync.
        case notDmaBuf
        /// The ioctl failed otherwise (errno); the pixels may be stale, but the mapping stays readable.
        case failed(errno: Int32)
    }

    /// `DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ`: before the CPU reads.
    @discardableResult
    func beginRead() -> Sync { Self.sync(fd, end: false) }

    /// `DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ`: after the CPU has read.
    @discardableResult
    func endRead() -> Sync { Self.sync(fd, end: true) }

    private static func sync(_ fd: Int32, end: Bool) -> Sync {
        var rc: Int32
        repeat { rc = cpw_dma_buf_sync(fd, true, end) } while rc == -EINTR || rc == -EAGAIN
        switch rc {
        case 0: return .synced
        case -ENOTTY: return .notDmaBuf
        default: return .failed(errno: -rc)
        }
    }

    /// The access for `data` when it is a DMA-BUF with an fd, else nil.
    init?(_ data: spa_data) {
        guard data.type == SPA_DATA_DmaBuf.rawValue, data.fd >= 0 else { return nil }
        fd = Int32(truncatingIfNeeded: data.fd)
    }

    init(fd: Int32) { self.fd = fd }
}
