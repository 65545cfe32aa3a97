// pwrec_plugin.h: the versioned C ABI for third-party pwrecord sink plugins (see docs/plugins.md).
//
// A plugin is a shared object that exports one symbol:
//
//     const pwrec_sink_v1 *pwrec_sink_entry(uint32_t host_abi);
//
// The host passes the highest ABI version it speaks (PWREC_SINK_ABI_VERSION). The plugin returns a table
// whose `abi_version` it implements (at most `host_abi`), or NULL when it cannot serve that host. The host
// checks `abi_version` and `struct_size` before it calls anything else in the table, and only reads fields
// that lie within `struct_size` (new fields are only ever appended).
//
// Only plain C types cross this boundary: no Swift, C++ or GLib types, no ownership transfer of memory.
// Pointers the host passes are valid for the duration of the call only; copy what you keep.
//
// Threading: every function of one sink instance is called from one host thread at a time (a thread the
// recorder starts for the instance, fed through a bounded queue of frame copies), never concurrently.
// Different instances may be called from different threads. A call that blocks costs the plugin its own
// frames (the oldest queued one is dropped); when the recording stops, the host waits a bounded time (5 s)
// for the queue to drain and `close` to return, then abandons the instance and reports it as failed.
//
// Timestamps are CLOCK_MONOTONIC nanoseconds minus the time the recording spent paused, so the timeline is
// continuous across a pause (compare them with each other and with start_time_ns, not with the clock now).
//
// The plugin runs inside pwrecord: a crash in it (a bad pointer, an abort) kills pwrecord; what the built-in
// encoder wrote to the -o file so far stays playable. The trust rules check the plugin file and its folders
// only, NOT the libraries it links (DT_NEEDED, RPATH/RUNPATH): link only libraries from trusted places.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The ABI version described by this header.
#define PWREC_SINK_ABI_VERSION 1u

/// Name of the one exported entry symbol.
#define PWREC_SINK_ENTRY_SYMBOL "pwrec_sink_entry"

// ---- status codes (every call returns one) ----------------------------------------------------------------
#define PWREC_OK 0
/// An option is unknown or has a bad value; set `pwrec_error.option`.
#define PWREC_ERR_INVALID_OPTION 1
/// The plugin cannot take this input (format, size...).
#define PWREC_ERR_UNSUPPORTED 2
/// No space left on the output device; whatever was written has been finalized.
#define PWREC_ERR_NO_SPACE 3
/// The output cannot be created or written (permissions, missing directory).
#define PWREC_ERR_PERMISSION 4
/// Anything else.
#define PWREC_ERR_FAILED 5

// ---- formats ---------------------------------------------------------------------------------------------
/// Packed 32-bit pixel layouts, named by their bytes in memory order (B,G,R,x for BGRX).
#define PWREC_PIXEL_BGRX 1u
#define PWREC_PIXEL_RGBX 2u
#define PWREC_PIXEL_BGRA 3u
#define PWREC_PIXEL_RGBA 4u

/// Interleaved little-endian samples.
#define PWREC_SAMPLE_F32 1u
#define PWREC_SAMPLE_S16 2u

typedef struct pwrec_video_format {
    uint32_t pixel_format;   ///< PWREC_PIXEL_*
    uint32_t width;
    uint32_t height;
    uint32_t rate_num;       ///< nominal frame rate rate_num/rate_den (the fps cap when one is set); 0/1 means variable
    uint32_t rate_den;
} pwrec_video_format;

typedef struct pwrec_audio_format {
    uint32_t sample_format;  ///< PWREC_SAMPLE_*
    uint32_t sample_rate;
    uint32_t channels;
} pwrec_audio_format;

/// Filled by the plugin when a call fails; the host zeroes it before each call.
typedef struct pwrec_error {
    char option[64];         ///< the option at fault (PWREC_ERR_INVALID_OPTION), NUL-terminated
    char message[512];       ///< what happened and, where possible, how to fix it, NUL-terminated
} pwrec_error;

/// One `key=value` from the sink spec (`myplugin:key=value,...`).
typedef struct pwrec_option {
    const char *key;
    const char *value;
} pwrec_option;

/// An option the plugin declares (for `pwrecord sinks` and for the host's validation of specs).
typedef struct pwrec_option_info {
    const char *name;
    const char *default_value;   ///< may be NULL (no default)
    const char *description;
} pwrec_option_info;

typedef struct pwrec_open_params {
    uint32_t struct_size;              ///< sizeof(pwrec_open_params) as the host knows it
    const pwrec_video_format *video;   ///< NULL when the recording has no video
    const pwrec_audio_format *audio;   ///< NULL when the recording has no audio
    const char *output;                ///< file or directory to write, may be NULL
    uint64_t start_time_ns;            ///< the first frame's timestamp: zero in the output's timeline
} pwrec_open_params;

typedef struct pwrec_video_frame {
    uint32_t struct_size;
    pwrec_video_format format;
    uint32_t stride;                   ///< bytes from one row to the next
    uint64_t timestamp_ns;             ///< CLOCK_MONOTONIC minus time paused (see above)
    uint64_t sequence;                 ///< +1 per frame the stream sent; a gap means frames this sink did not
                                       ///< get: dropped, left out by the fps cap, or sent while paused
    const uint8_t *data;               ///< stride * height bytes, valid during the call only
    uint64_t size;
} pwrec_video_frame;

typedef struct pwrec_audio_chunk {
    uint32_t struct_size;
    pwrec_audio_format format;
    uint64_t timestamp_ns;             ///< time of the first sample, on the frames' timeline (see above)
    uint64_t sequence;
    const uint8_t *data;               ///< frame_count * channels * sample size bytes, valid during the call
    uint64_t size;
    uint64_t frame_count;
} pwrec_audio_chunk;

/// What the sink wrote, filled by `close`. `files` must stay valid until `destroy`.
typedef struct pwrec_sink_result {
    uint32_t struct_size;
    uint64_t video_frames;
    uint64_t audio_frames;
    uint64_t bytes_written;
    const char *const *files;
    uint32_t file_count;
} pwrec_sink_result;

/// The table a plugin returns from `pwrec_sink_entry`. Version 1.
typedef struct pwrec_sink_v1 {
    uint32_t abi_version;              ///< PWREC_SINK_ABI_VERSION the plugin implements
    uint32_t struct_size;              ///< sizeof(pwrec_sink_v1) as the plugin was built
    const char *id;                    ///< the sink id in specs: lowercase letters, digits, '-', '_'
    const char *description;           ///< one line for `pwrecord sinks`
    const pwrec_option_info *options;  ///< the options the sink takes; the host refuses others
    uint32_t option_count;

    /// Makes an instance from the spec's options (already checked against `options`). Nothing is opened yet.
    int32_t (*create)(const pwrec_option *options, uint32_t option_count, void **sink, pwrec_error *error);
    /// Once, before the first sample.
    int32_t (*open)(void *sink, const pwrec_open_params *params, pwrec_error *error);
    /// A video frame, in timestamp order.
    int32_t (*write_video)(void *sink, const pwrec_video_frame *frame, pwrec_error *error);
    /// An audio chunk, in timestamp order. May be NULL: audio is then not delivered.
    int32_t (*write_audio)(void *sink, const pwrec_audio_chunk *chunk, pwrec_error *error);
    /// The video format changed (a resize). May be NULL: frames in the new format just arrive.
    int32_t (*format_changed)(void *sink, const pwrec_video_format *format, pwrec_error *error);
    /// Flush and finalize. Called exactly once per created instance, also after a failed open or write.
    int32_t (*close)(void *sink, pwrec_sink_result *result, pwrec_error *error);
    /// Frees the instance. Called exactly once, after `close`.
    void (*destroy)(void *sink);
} pwrec_sink_v1;

/// The entry point type (`dlsym(handle, PWREC_SINK_ENTRY_SYMBOL)`).
typedef const pwrec_sink_v1 *(*pwrec_sink_entry_fn)(uint32_t host_abi);

// Constants for Swift, whose importer does not bring in `#define`s with a `u` suffix reliably.
static const uint32_t PWREC_ABI_VERSION_CURRENT = PWREC_SINK_ABI_VERSION;
/// The smallest table a version-1 host accepts: everything up to and including `destroy`.
static const uint32_t PWREC_SINK_V1_MIN_SIZE = (uint32_t)(offsetof(pwrec_sink_v1, destroy) + sizeof(void (*)(void *)));

#ifdef __cplusplus
}
#endif
