// C reference for the stitching benchmark: the same algorithm family as ScrollStitcher (the same row hash:
// SSE2 lanes accumulating lo32 x hi32 products of data XOR keys, scrambled per 256 bytes; fixed bands from identical rows, votes of rows looked up in a hash
// table, the best three offsets verified over the shared rows, the blank-overlap fallback, new rows
// converted BGRx -> RGBA into a banded canvas). Written for this benchmark; compiled with gcc -O2.
// Usage: reference <page.bin> [runs]    (page.bin is written by StitchBench)
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <emmintrin.h>  // SSE2, part of every x86-64 CPU

typedef unsigned __int128 u128;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static inline uint64_t fold(uint64_t a, uint64_t b) {
    u128 p = (u128)a * b;
    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t load32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

// One key per 16 bytes of a 256-byte block (the same as RowSignatures.keys).
static const uint64_t KEYS[32] = {
    0x3211F64AEA36DD94ULL, 0xADE028D323253B4BULL, 0xFE96F4CC177A9A6EULL, 0x30E456D20FCC8294ULL,
    0xA0F5A24A68C8812DULL, 0x385F6F9AECDABE9BULL, 0xD88F5621B372806EULL, 0x9438507752AA17B0ULL,
    0x7A2523E5762B43D8ULL, 0x908B78FFE53D617BULL, 0x8DB2CCB0AEA0DFC9ULL, 0x57E064CABE275D63ULL,
    0xEB579EA365F6EF98ULL, 0x68B9FB2CCD6CD548ULL, 0xAFB49A42414B22BBULL, 0xA6FC9CC0919B4581ULL,
    0x8DB4772EEE45B85FULL, 0xCA9E67976C0DD530ULL, 0x43A445333D0CF574ULL, 0xACDE4D91EFF8698BULL,
    0x33DF91FF94F93B92ULL, 0xE245D6F02AAB9505ULL, 0x478E6048E8D17E9CULL, 0xDAA90B0B7CED954BULL,
    0xE140F047D57AB723ULL, 0x39CED0876DD94F97ULL, 0x997AB3AD9446F6E3ULL, 0x0E4FA2C37EABAD00ULL,
    0xC536EE1D635ACE52ULL, 0xEE3E34094F090370ULL, 0x698B0FC1C5FEC891ULL, 0x46AE4FA04F08ECB1ULL
};

static inline __m128i mul_low32(__m128i a, __m128i p) {  // a * p mod 2^64 per lane, p < 2^32
    return _mm_add_epi64(_mm_mul_epu32(a, p), _mm_slli_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), p), 32));
}

static uint64_t hash_row(const uint8_t *row, int pixels, uint64_t mask, int *blank) {
    uint64_t first = load32(row) & (mask & 0xFFFFFFFFULL), pair = first | first << 32;
    const __m128i pairs = _mm_set1_epi64x((long long)pair), masks = _mm_set1_epi64x((long long)mask);
    const __m128i prime = _mm_set1_epi64x(0x9E3779B1);
    __m128i a0 = _mm_set_epi64x(0x13198A2E03707344LL, 0x243F6A8885A308D3LL);
    __m128i a1 = _mm_set_epi64x(0x082EFA98EC4E6C89LL, (long long)0xA4093822299F31D0ULL);
    __m128i vdiff = _mm_setzero_si128();
    int blocks = pixels / 64;
    for (int b = 0; b < blocks; b++) {
        const uint8_t *base = row + b * 256;
        for (int j = 0; j < 8; j++) {
            __m128i w0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(base + j * 32)), masks);
            __m128i w1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(base + j * 32 + 16)), masks);
            vdiff = _mm_or_si128(vdiff, _mm_or_si128(_mm_xor_si128(w0, pairs), _mm_xor_si128(w1, pairs)));
            __m128i d0 = _mm_xor_si128(w0, _mm_loadu_si128((const __m128i *)(KEYS + 4 * j)));
            __m128i d1 = _mm_xor_si128(w1, _mm_loadu_si128((const __m128i *)(KEYS + 4 * j + 2)));
            a0 = _mm_add_epi64(a0, _mm_add_epi64(_mm_mul_epu32(d0, _mm_srli_epi64(d0, 32)), w0));
            a1 = _mm_add_epi64(a1, _mm_add_epi64(_mm_mul_epu32(d1, _mm_srli_epi64(d1, 32)), w1));
        }
        a0 = mul_low32(_mm_xor_si128(a0, _mm_srli_epi64(a0, 47)), prime);
        a1 = mul_low32(_mm_xor_si128(a1, _mm_srli_epi64(a1, 47)), prime);
    }
    uint64_t v[2], l0[2], l1[2];
    _mm_storeu_si128((__m128i *)v, vdiff);
    _mm_storeu_si128((__m128i *)l0, a0);
    _mm_storeu_si128((__m128i *)l1, a1);
    uint64_t diff = v[0] | v[1], tail = 0x452821E638D01377ULL;
    int at = blocks * 256, end = pixels * 4;
    for (; at + 8 <= end; at += 8) { uint64_t w = load64(row + at) & mask; diff |= w ^ pair; tail = fold(tail ^ w, 0xE7037ED1A0B428DBULL); }
    if (at < end) { uint64_t w = load32(row + at) & (mask & 0xFFFFFFFFULL); diff |= w ^ first; tail = fold(tail ^ w, 0x8EBC6AF09C88C6E3ULL); }
    uint64_t lanes = fold(l0[0] ^ 0xA0761D6478BD642FULL, l0[1] ^ 0xE7037ED1A0B428DBULL)
                   ^ fold(l1[0] ^ 0x8EBC6AF09C88C6E3ULL, l1[1] ^ 0x589965CC75374CC3ULL);
    *blank = diff == 0;
    return fold(lanes ^ tail, 0xA0761D6478BD642FULL ^ (uint64_t)pixels);
}

typedef struct { uint64_t *hash; uint8_t *blank; } sigs;

static void compute(sigs *s, const uint8_t *frame, int stride, int width, int rows) {
    for (int y = 0; y < rows; y++) {
        int b;
        s->hash[y] = hash_row(frame + (size_t)y * stride, width, 0x00FFFFFF00FFFFFFULL, &b);
        s->blank[y] = (uint8_t)b;
    }
}

// Scratch for alignment.
static uint64_t *keys; static int32_t *heads, *counts, *nexts, *votes; static int capacity;

static int mismatches(const uint64_t *a, const uint64_t *b, int offset, int start, int end, int limit) {
    int count = 0;
    for (int r = start; r < end; r++) if (b[r] != a[r + offset]) { if (++count > limit) break; }
    return count;
}

enum { UNCHANGED, MOVED, UNALIGNED };

// Returns UNCHANGED, MOVED (with *offset, *top, *bottom) or UNALIGNED.
static int align(const sigs *A, const sigs *B, int n, int prefer_down, double tolerance, int min_overlap,
                 int *offset, int *top_out, int *bottom_out, int *ambiguous) {
    const uint64_t *a = A->hash, *b = B->hash;
    int top = 0; while (top < n && a[top] == b[top]) top++;
    if (top == n) return UNCHANGED;
    int bottom = 0; while (bottom < n - top && a[n - 1 - bottom] == b[n - 1 - bottom]) bottom++;
    *top_out = top; *bottom_out = bottom; *ambiguous = 0;
    int lo = top, hi = n - bottom, span = hi - lo, cap = 16;
    while (cap < span * 2) cap <<= 1;
    int mask = cap - 1;
    for (int i = 0; i < cap; i++) { heads[i] = -1; counts[i] = 0; }
    for (int i = 0; i < 2 * span + 1; i++) votes[i] = 0;
    for (int r = lo; r < hi; r++) {
        if (A->blank[r]) continue;
        int slot = (int)(a[r] >> 20) & mask;
        while (heads[slot] != -1 && keys[slot] != a[r]) slot = (slot + 1) & mask;
        keys[slot] = a[r]; nexts[r] = heads[slot]; heads[slot] = r; counts[slot]++;
    }
    for (int r = lo; r < hi; r++) {
        if (B->blank[r]) continue;
        int slot = (int)(b[r] >> 20) & mask;
        while (heads[slot] != -1 && keys[slot] != b[r]) slot = (slot + 1) & mask;
        if (heads[slot] == -1 || counts[slot] > 4) continue;
        for (int p = heads[slot]; p >= 0; p = nexts[p]) votes[p - r + span]++;
    }
    int best_off[3] = {0, 0, 0}, best_votes[3] = {0, 0, 0};
    for (int i = 0; i < 2 * span + 1; i++) {
        if (votes[i] <= best_votes[2]) continue;
        best_off[2] = i - span; best_votes[2] = votes[i];
        for (int k = 2; k > 0 && best_votes[k] > best_votes[k - 1]; k--) {
            int t = best_off[k]; best_off[k] = best_off[k - 1]; best_off[k - 1] = t;
            t = best_votes[k]; best_votes[k] = best_votes[k - 1]; best_votes[k - 1] = t;
        }
    }
    int chosen = 0, chosen_matches = 0, found = 0;
    for (int k = 0; k < 3; k++) {
        if (best_votes[k] == 0) continue;
        int d = best_off[k], start = lo > lo - d ? lo : lo - d, end = hi < hi - d ? hi : hi - d;
        if (end <= start) continue;
        int allowed = (int)((end - start) * tolerance);
        int wrong = mismatches(a, b, d, start, end, allowed);
        if (wrong <= allowed && end - start - wrong > chosen_matches) { chosen = d; chosen_matches = end - start - wrong; found = 1; }
    }
    if (found) { *offset = chosen; return chosen == 0 ? UNCHANGED : MOVED; }
    // Blank-overlap rule, over the bands' blank inner edges too when their colour is blank inside.
    uint64_t colours[4]; int ncol = 0;
    for (int r = lo; r < hi && ncol < 4; r++) {
        if (A->blank[r]) { int k = 0; while (k < ncol && colours[k] != a[r]) k++; if (k == ncol) colours[ncol++] = a[r]; }
        if (ncol < 4 && B->blank[r]) { int k = 0; while (k < ncol && colours[k] != b[r]) k++; if (k == ncol) colours[ncol++] = b[r]; }
    }
    int flo = lo, fhi = hi;
    if (ncol) {
        for (;;) { if (flo == 0 || !B->blank[flo - 1]) break; int k = 0; while (k < ncol && colours[k] != b[flo - 1]) k++; if (k == ncol) break; flo--; }
        for (;;) { if (fhi == n || !B->blank[fhi]) break; int k = 0; while (k < ncol && colours[k] != b[fhi]) k++; if (k == ncol) break; fhi++; }
    }
    int needed = min_overlap > 1 ? min_overlap : 1;
    for (int dist = 1; dist <= fhi - flo - needed; dist++) {
        for (int s = 0; s < 2; s++) {
            int d = ((s == 0) == prefer_down) ? dist : -dist;
            int start = flo > flo - d ? flo : flo - d, end = fhi < fhi - d ? fhi : fhi - d;
            if (mismatches(a, b, d, start, end, 0) == 0) { *offset = d; *ambiguous = 1; return MOVED; }
        }
    }
    return UNALIGNED;
}

// A canvas of RGBA rows in bands, growing at both ends.
enum { BAND = 256 };
typedef struct { uint8_t **bands; int count, first, capacity; int row_bytes; } canvas;

static int band_of(int row) { return row >= 0 ? row / BAND : -((-row - 1) / BAND) - 1; }

static void reserve(canvas *c, int lo, int hi) {
    int blo = band_of(lo), bhi = band_of(hi - 1);
    if (c->count == 0) c->first = blo;
    if (blo < c->first) {
        int add = c->first - blo;
        if (c->count + add > c->capacity) { c->capacity = (c->count + add) * 2; c->bands = realloc(c->bands, sizeof(uint8_t *) * c->capacity); }
        memmove(c->bands + add, c->bands, sizeof(uint8_t *) * c->count);
        for (int i = 0; i < add; i++) c->bands[i] = malloc((size_t)BAND * c->row_bytes);
        c->count += add; c->first = blo;
    }
    while (c->first + c->count <= bhi) {
        if (c->count + 1 > c->capacity) { c->capacity = (c->count + 1) * 2; c->bands = realloc(c->bands, sizeof(uint8_t *) * c->capacity); }
        c->bands[c->count++] = malloc((size_t)BAND * c->row_bytes);
    }
}

static uint8_t *row_at(canvas *c, int row) {
    int b = band_of(row);
    return c->bands[b - c->first] + (size_t)(row - b * BAND) * c->row_bytes;
}

static void copy_rows(canvas *c, const uint8_t *frame, int stride, int width, int from, int to, int origin) {
    if (to <= from) return;
    reserve(c, origin + from, origin + to);
    for (int r = from; r < to; r++) {
        const uint32_t *src = (const uint32_t *)(frame + (size_t)r * stride);
        uint32_t *dst = (uint32_t *)row_at(c, origin + r);
        for (int x = 0; x < width; x++) {
            uint32_t p = src[x];
            dst[x] = 0xFF000000u | (p & 0x0000FF00u) | (p & 0xFFu) << 16 | (p >> 16 & 0xFFu);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: reference <page.bin> [runs]\n"); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 5; if (runs < 1) runs = 1;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int32_t head[7];
    if (fread(head, 4, 7, f) != 7 || head[0] != 0x47505750) { fprintf(stderr, "bad page file\n"); return 1; }
    int W = head[1], PH = head[2], V = head[3], HH = head[4], FH = head[5], N = head[6];
    int32_t *offsets = malloc(4 * (size_t)N);
    if (fread(offsets, 4, N, f) != (size_t)N) { fprintf(stderr, "bad page file\n"); return 1; }
    uint8_t *page = malloc((size_t)W * PH * 4);
    if (fread(page, 1, (size_t)W * PH * 4, f) != (size_t)W * PH * 4) { fprintf(stderr, "bad page file\n"); return 1; }
    fclose(f);
    int stride = W * 4;
    uint8_t *frame = malloc((size_t)stride * V);
    sigs s0 = { malloc(8 * (size_t)V), malloc(V) }, s1 = { malloc(8 * (size_t)V), malloc(V) };
    capacity = 16; while (capacity < V * 2) capacity <<= 1;
    keys = malloc(8 * (size_t)capacity); heads = malloc(4 * (size_t)capacity); counts = malloc(4 * (size_t)capacity);
    nexts = malloc(4 * (size_t)V); votes = malloc(4 * (size_t)(2 * V + 1));
    double *totals = malloc(sizeof(double) * runs);
    canvas c = {0};
    int out_top = 0, out_height = 0;
    for (int run = 0; run < runs; run++) {
        for (int i = 0; i < c.count; i++) free(c.bands[i]);
        free(c.bands);
        c = (canvas){ .row_bytes = W * 4 };
        sigs *prev = &s0, *cur = &s1;
        int position = 0, top = 0, bottom = 0, settled_top = 0, settled_bottom = 0, bands_known = 0, prefer_down = 1;
        double total = 0;
        for (int i = 0; i < N; i++) {
            // Render the viewport as BGRx (not timed).
            for (int r = 0; r < V; r++) {
                int src = r < HH ? r : r >= V - FH ? HH + (PH - HH - FH) + r - (V - FH) : r + offsets[i];
                const uint32_t *s = (const uint32_t *)(page + (size_t)src * W * 4);
                uint32_t *d = (uint32_t *)(frame + (size_t)r * stride);
                for (int x = 0; x < W; x++) { uint32_t p = s[x]; d[x] = (p & 0x0000FF00u) | (p & 0xFFu) << 16 | (p >> 16 & 0xFFu) | 0xFF000000u; }
            }
            double start = now_ms();
            if (i == 0) {
                copy_rows(&c, frame, stride, W, 0, V, 0);
                compute(prev, frame, stride, W, V);
            } else {
                compute(cur, frame, stride, W, V);
                int offset = 0, ftop = 0, fbottom = 0, ambiguous = 0;
                int outcome = align(prev, cur, V, prefer_down, 0.25, 16, &offset, &ftop, &fbottom, &ambiguous);
                if (outcome == MOVED) {
                    int at = position + offset;
                    if (!bands_known) { settled_top = position + ftop; settled_bottom = position + V - fbottom; bands_known = 1; }
                    if (at > bottom) {
                        int from = settled_bottom - at > ftop ? settled_bottom - at : ftop; if (from > V) from = V;
                        copy_rows(&c, frame, stride, W, from, V, at);
                        if (at + V - fbottom > settled_bottom) settled_bottom = at + V - fbottom;
                        bottom = at;
                    }
                    if (at < top) {
                        int to = settled_top - at < V - fbottom ? settled_top - at : V - fbottom; if (to < 0) to = 0;
                        copy_rows(&c, frame, stride, W, 0, to, at);
                        if (at + ftop < settled_top) settled_top = at + ftop;
                        top = at;
                    }
                    position = at; prefer_down = offset > 0;
                    sigs *t = prev; prev = cur; cur = t;
                } else if (outcome == UNCHANGED) {
                    sigs *t = prev; prev = cur; cur = t;
                } else {
                    fprintf(stderr, "frame %d unaligned\n", i);
                    return 1;
                }
            }
            total += now_ms() - start;
        }
        totals[run] = total;
        out_top = top; out_height = bottom + V - top;
    }
    // Check the result against the page.
    if (out_height != PH) { fprintf(stderr, "stitched height %d, page %d\n", out_height, PH); return 1; }
    for (int y = 0; y < PH; y++)
        if (memcmp(row_at(&c, out_top + y), page + (size_t)y * W * 4, (size_t)W * 4) != 0) { fprintf(stderr, "row %d differs\n", y); return 1; }
    // Median and minimum.
    for (int i = 0; i < runs; i++) for (int j = i + 1; j < runs; j++) if (totals[j] < totals[i]) { double t = totals[i]; totals[i] = totals[j]; totals[j] = t; }
    printf("stitch (C reference, gcc -O2): %d frames %dx%d BGRx -> %dx%d, equal to the page\n", N, W, V, W, out_height);
    printf("  total ms over %d runs (sorted):", runs);
    for (int i = 0; i < runs; i++) printf(" %.2f", totals[i]);
    printf("  (median %.2f, per frame %.2f)\n", totals[runs / 2], totals[runs / 2] / N);
    printf("RESULT stitch_c_ms=%.2f stitch_c_min_ms=%.2f\n", totals[runs / 2], totals[0]);
    return 0;
}
