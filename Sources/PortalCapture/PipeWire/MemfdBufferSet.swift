import CPipeWire
import Glibc

/// The memfd-backed memory a producer hands PipeWire (`memfd_create`, `ftruncate`, `mmap` shared), as
/// compositors allocate it in `add_buffer`. Kept apart from the stream so that every mapping is released
/// even when the stream is destroyed without forwarding `remove_buffer`. Touched only with the loop lock held.
final class MemfdBufferSet {
    private struct Allocation {
        var fd: Int32
        var memory: UnsafeMutableRawPointer
        var size: Int
    }
    private var allocations: [Allocation] = []

    /// A new shared mapping of `size` bytes and its fd.
    func allocate(size: Int) throws(PipeWireError) -> (fd: Int32, memory: UnsafeMutableRawPointer) {
        let fd = cpw_memfd_create("pwrecord-frame", CPW_MFD_CLOEXEC | CPW_MFD_ALLOW_SEALING)
        guard fd >= 0 else { throw .bufferAllocationFailed(function: "memfd_create", errno: errno) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            let err = errno
            Glibc.close(fd)
            throw .bufferAllocationFailed(function: "ftruncate", errno: err)
        }
        let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let memory, memory != MAP_FAILED else {
            let err = errno
            Glibc.close(fd)
            throw .bufferAllocationFailed(function: "mmap", errno: err)
        }
        allocations.append(Allocation(fd: fd, memory: memory, size: size))
        return (fd, memory)
    }

    /// Unmaps and closes the allocation with `fd` (`remove_buffer`).
    func release(fd: Int32) {
        guard let i = allocations.firstIndex(where: { $0.fd == fd }) else { return }
        let a = allocations.remove(at: i)
        munmap(a.memory, a.size)
        Glibc.close(a.fd)
    }

    /// Releases everything (after `pw_stream_destroy`).
    func releaseAll() {
        for a in allocations {
            munmap(a.memory, a.size)
            Glibc.close(a.fd)
        }
        allocations = []
    }

    var count: Int { allocations.count }

    deinit { releaseAll() }
}
