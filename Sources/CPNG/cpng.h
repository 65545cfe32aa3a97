// Umbrella header for libpng 1.6 and zlib (PNGWriter's own parallel encoder deflates with zlib directly).
#pragma once
#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/// A PNG being written into memory, and libpng's last error message.
typedef struct cpng_buffer {
    unsigned char *data;
    size_t size;
    size_t capacity;
    char message[256];
} cpng_buffer;

// Why: libpng writes through a C callback (`png_set_write_fn`); this one appends to a growing buffer.
static inline void cpng_buffer_write(png_structp png, png_bytep data, png_size_t length) {
    cpng_buffer *out = (cpng_buffer *)png_get_io_ptr(png);
    if (out->size + length > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 1 << 20;
        while (capacity < out->size + length) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory for the encoded PNG");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, data, length);
    out->size += length;
}

// Why: `png_set_write_fn` needs a flush callback; memory needs no flushing.
static inline void cpng_buffer_flush(png_structp png) { (void)png; }

// Why: libpng reports errors by calling this and longjmp-ing; the message is kept for Swift's error.
static inline void cpng_on_error(png_structp png, png_const_charp message) {
    cpng_buffer *out = (cpng_buffer *)png_get_error_ptr(png);
    if (out) { strncpy(out->message, message, sizeof out->message - 1); out->message[sizeof out->message - 1] = 0; }
    png_longjmp(png, 1);
}

// Why: libpng warnings (e.g. about ancillary chunks) do not stop encoding; the image is still valid.
static inline void cpng_on_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

/// Why: libpng reports errors with longjmp, which must land in the C frame that called setjmp (Swift has
/// none); this runs the whole encode under one setjmp. Encodes `height` rows of 4-byte RGBA pixels into
/// `out`: colour type RGBA, or RGB with the fourth byte stripped (`png_set_filler`) when `drop_alpha`.
/// `level`, `filters` and `strategy` (zlib's Z_FILTERED, Z_RLE...) < 0 keep libpng's defaults. Returns 0, or -1 with `out->message` set.
static inline int cpng_encode_rgba(cpng_buffer *out, const unsigned char *const *rows, unsigned width,
                                   unsigned height, int drop_alpha, int level, int filters,
                                   int strategy) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, out, cpng_on_error, cpng_on_warning);
    if (!png) { strcpy(out->message, "png_create_write_struct failed"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_write_struct(&png, NULL); strcpy(out->message, "png_create_info_struct failed"); return -1; }
    if (setjmp(png_jmpbuf(png))) { png_destroy_write_struct(&png, &info); return -1; }
    png_set_write_fn(png, out, cpng_buffer_write, cpng_buffer_flush);
    png_set_IHDR(png, info, width, height, 8, drop_alpha ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (level >= 0) png_set_compression_level(png, level);
    if (filters >= 0) png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    if (strategy >= 0) png_set_compression_strategy(png, strategy);
    png_set_compression_buffer_size(png, 256 * 1024);  // fewer, larger IDAT chunks
    png_write_info(png, info);
    if (drop_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    png_write_rows(png, (png_bytepp)rows, height);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 0;
}

// Why: the encoded bytes were allocated by C (realloc) and must be freed by C.
static inline void cpng_buffer_free(cpng_buffer *out) { free(out->data); out->data = NULL; out->size = out->capacity = 0; }

// Why: `deflateInit2` is a function-like macro (it passes ZLIB_VERSION and sizeof(z_stream) to deflateInit2_),
// which Swift cannot call. Starts a raw deflate stream (windowBits -15: no zlib header or Adler-32 trailer)
// with memLevel 8, zlib's default.
static inline int cpng_deflate_init_raw(z_streamp stream, int level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, strategy);
}

// Why: zlib.h may #define adler32_combine to adler32_combine64 (large-file builds), which Swift cannot see.
static inline unsigned long cpng_adler32_combine(unsigned long adler1, unsigned long adler2, long length2) {
    return adler32_combine(adler1, adler2, (z_off_t)length2);
}
