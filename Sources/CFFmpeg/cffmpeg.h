// Umbrella header for FFmpeg 5.1's libraries, plus thin `cav_` shims for macros Swift cannot import.
#pragma once
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/channel_layout.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>

// AVERROR(e) and AVERROR_EOF are function-like/FFERRTAG macros.
static const int CAV_ERROR_EOF = AVERROR_EOF;
static const int CAV_ERROR_EAGAIN = AVERROR(EAGAIN);
// AV_NOPTS_VALUE is a cast macro.
static const int64_t CAV_NOPTS_VALUE = AV_NOPTS_VALUE;
#include <libavutil/audio_fifo.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// AVERROR(ENOSPC) for a custom AVIO write callback; AVERROR is a function-like macro.
static inline int cav_error_from_errno(int e) { return AVERROR(e); }

// The encoder's output file keeps an allocation reserve beyond its end (so that running out of space is
// seen while the trailer still fits). fallocate(2) is a GNU extension that Swift's Glibc module hides, and
// syscall(2) is variadic, so neither imports. Mode 1 is FALLOC_FL_KEEP_SIZE (the file size does not change).
static inline int cav_reserve_space(int fd, int64_t offset, int64_t length) {
    return (int)syscall(SYS_fallocate, fd, 1, (off_t)offset, (off_t)length);
}

// libx264 madvise(MADV_HUGEPAGE)s its frames, so each is rounded up to 2 MB pages; a process of its own (the
// CLI) may turn transparent huge pages off for itself. prctl(2) is variadic, so it does not import.
// (Tests turn them back on with 0, so children they start later do not inherit the setting.)
static inline int cav_set_transparent_huge_pages_disabled(unsigned long disabled) {
    return prctl(PR_SET_THP_DISABLE, disabled, 0UL, 0UL, 0UL);
}
