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
