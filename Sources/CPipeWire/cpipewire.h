// Umbrella header for libpipewire-0.3 and libspa-0.2, plus thin `cpw_` shims for what Swift cannot import
// (variadic functions, function-like macros, spa_interface_call wrappers). Shims translate only.
#pragma once
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/props.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>
#include <spa/debug/types.h>

// ---- PipeWire layer shims (Sources/PortalCapture/PipeWire/) ----
#include <spa/debug/types.h>
#include <spa/param/video/type-info.h>
#include <spa/utils/dict.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <linux/dma-buf.h>
#include <semaphore.h>
#include <time.h>

/// Why: `PW_ID_ANY` is a cast macro, which Swift does not import.
static const uint32_t CPW_ID_ANY = PW_ID_ANY;
/// Why: the `MFD_*` flags live in <linux/memfd.h>, hidden by Swift's Glibc module.
static const unsigned int CPW_MFD_CLOEXEC = 0x0001U;
/// Why: as above.
static const unsigned int CPW_MFD_ALLOW_SEALING = 0x0002U;

/// Why: glibc declares `sem_clockwait` only under _GNU_SOURCE, so Swift's Glibc module hides it; the delivery
/// thread's bounded wait needs the monotonic clock (`sem_timedwait` counts on the wall clock, which may jump).
static inline int cpw_sem_clockwait_monotonic(sem_t *sem, const struct timespec *deadline) {
    extern int sem_clockwait(sem_t *, clockid_t, const struct timespec *);
    return sem_clockwait(sem, CLOCK_MONOTONIC, deadline);
}

/// Why: `memfd_create` is hidden by Swift's Glibc module; call the syscall directly.
static inline int cpw_memfd_create(const char *name, unsigned int flags) {
    return (int)syscall(SYS_memfd_create, name, flags);
}

/// Why: `pw_core_add_listener` is a spa_interface_call macro.
static inline int cpw_core_add_listener(struct pw_core *core, struct spa_hook *hook,
                                        const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, hook, events, data);
}

/// Why: `pw_registry_add_listener` is a spa_interface_call macro.
static inline int cpw_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook,
                                            const struct pw_registry_events *events, void *data) {
    return pw_registry_add_listener(registry, hook, events, data);
}

/// Why: `pw_loop_add_timer` is a spa_interface_call macro.
static inline struct spa_source *cpw_loop_add_timer(struct pw_loop *loop, spa_source_timer_func_t func, void *data) {
    return pw_loop_add_timer(loop, func, data);
}

/// Why: `pw_loop_update_timer` is a spa_interface_call macro.
static inline int cpw_loop_update_timer(struct pw_loop *loop, struct spa_source *source,
                                        struct timespec *value, struct timespec *interval, bool absolute) {
    return pw_loop_update_timer(loop, source, value, interval, absolute);
}

/// Why: `pw_loop_destroy_source` is a spa_interface_call macro.
static inline void cpw_loop_destroy_source(struct pw_loop *loop, struct spa_source *source) {
    pw_loop_destroy_source(loop, source);
}

/// Why: `pw_loop_signal_event` is a spa_interface_call macro.
static inline int cpw_loop_signal_event(struct pw_loop *loop, struct spa_source *source) {
    return pw_loop_signal_event(loop, source);
}

/// Why: `pw_loop_add_event` is a spa_interface_call macro.
static inline struct spa_source *cpw_loop_add_event(struct pw_loop *loop, spa_source_event_func_t func, void *data) {
    return pw_loop_add_event(loop, func, data);
}

/// Why: `spa_type_video_format` is a static table that imports as a fixed-size tuple.
static inline const char *cpw_video_format_name(uint32_t format) {
    return spa_debug_type_find_short_name(spa_type_video_format, format);
}

/// Why: `SPA_META_HEADER_FLAG_CORRUPTED` is a shift macro; name the value once.
static const uint32_t CPW_META_HEADER_FLAG_CORRUPTED = SPA_META_HEADER_FLAG_CORRUPTED;
/// Why: `SPA_CHUNK_FLAG_CORRUPTED` is a shift macro.
static const uint32_t CPW_CHUNK_FLAG_CORRUPTED = SPA_CHUNK_FLAG_CORRUPTED;
/// Why: `SPA_DATA_FLAG_READWRITE` is a shift macro.
static const uint32_t CPW_DATA_FLAG_READWRITE = SPA_DATA_FLAG_READWRITE;

/// Why: `SPA_POD_PROP_FLAG_MANDATORY` is a shift macro.
static const uint32_t CPW_POD_PROP_FLAG_MANDATORY = SPA_POD_PROP_FLAG_MANDATORY;
/// Why: `SPA_POD_PROP_FLAG_DONT_FIXATE` is a shift macro.
static const uint32_t CPW_POD_PROP_FLAG_DONT_FIXATE = SPA_POD_PROP_FLAG_DONT_FIXATE;

/// Why: `DMA_BUF_IOCTL_SYNC` is an `_IOW` macro and `ioctl` is variadic. `read` brackets CPU reads
/// (DMA_BUF_SYNC_READ), `end` closes the bracket (DMA_BUF_SYNC_END). Returns 0 or -errno.
static inline int cpw_dma_buf_sync(int fd, bool read, bool end) {
    struct dma_buf_sync sync = { .flags = (read ? DMA_BUF_SYNC_READ : DMA_BUF_SYNC_RW)
                                          | (end ? DMA_BUF_SYNC_END : DMA_BUF_SYNC_START) };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) < 0 ? -errno : 0;
}

/// Why: `pw_node_add_listener` is a spa_interface_call macro.
static inline int cpw_node_add_listener(struct pw_node *node, struct spa_hook *hook,
                                        const struct pw_node_events *events, void *data) {
    return pw_node_add_listener(node, hook, events, data);
}

// ---- Cache warming (Sources/PortalCapture/PipeWire/CacheWarmer.swift) ----
#include <malloc.h>

/// Why: `__builtin_prefetch` is a compiler builtin, which Swift cannot call. A read, kept in every cache level.
static inline void cpw_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Why: `malloc_usable_size` is declared in <malloc.h>, which Swift's Glibc module does not include.
static inline size_t cpw_allocation_size(void *allocation) {
    return malloc_usable_size(allocation);
}
