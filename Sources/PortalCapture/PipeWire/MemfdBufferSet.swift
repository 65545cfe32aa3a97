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

    /// A new shared mapping of `size` bytes and its fd. With `writeOnly` the fd handed back is the memfd
    /// opened again for writing alone (`/proc/self/fd`): a consumer's read mapping of it fails (EACCES), as a
    /// device buffer whose driver refuses CPU access does; this side keeps its own mapping.
    func allocate(size: Int, writeOnly: Bool = false) throws(PipeWireError) -> (fd: Int32, memory: UnsafeMutableRawPointer) {
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
        var handed = fd
        if writeOnly {
            handed = open("/proc/self/fd/\(fd)", O_WRONLY | O_CLOEXEC)
            let err = errno
            Glibc.close(fd)
            guard handed >= 0 else {
                munmap(memory, size)
                throw .bufferAllocationFailed(function: "open(O_WRONLY)", errno: err)
            }
        }
        allocations.append(Allocation(fd: handed, memory: memory, size: size))
        return (handed, memory)
    }

    /// The size of the allocation mapped at `memory`, if it is one of these.
    func size(of memory: UnsafeMutableRawPointer) -> Int? {
        allocations.first { $0.memory == memory }?.size
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
