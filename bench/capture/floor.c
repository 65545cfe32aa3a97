/*
 * The design floor of issue 4's capture path, in C: what a consumer built exactly the way the issue asks
 * (`process` only hands the buffer off to a bounded queue; a delivery thread calls the sink; PipeWire is
 * never blocked) costs per frame on this machine, with no Swift, no frame objects and no sink protocol.
 * bench/capture/run measures it beside ours and gst, so the ratio target can be read against what the
 * design itself allows (bench/README.md, capture).
 *
 *   floor NODE handoff   process on the data thread (PW_STREAM_FLAG_RT_PROCESS) takes the newest buffer
 *                        into a one-slot queue and posts a semaphore; a delivery thread waits on it, reads
 *                        one byte of the frame (the null sink) and marks the buffer released; the next
 *                        process queues released buffers back. Two thread wake-ups per frame, like ours.
 *   floor NODE stream    process on the data thread queues every buffer straight back: one wake-up per
 *                        frame, PipeWire's own cost for a consumer.
 *
 *   floor NODE handoff KIND
 *                        the same, with extra work in every `process` first, to price kinds of code on this
 *                        machine (bench/capture/run --probe): KIND is `direct` (256 calls, each to a function
 *                        on a 64-byte line of its own: 256 lines of code in a row, 16 KiB), `indirect` (the
 *                        same 256 functions called through a table of pointers), `straight` (200 lines of
 *                        straight-line code, no call) or `data` (loads from 256 lines in 64 pages).
 *
 * Stops on SIGINT or SIGTERM and prints the frames it took and delivered. Built by bench/capture/run with
 * `gcc -O2 $(pkg-config --cflags --libs libpipewire-0.3) -lpthread`.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>

#define MAX_BUFFERS 64

struct consumer {
	struct pw_thread_loop *loop;
	struct pw_stream *stream;
	struct spa_hook listener;
	int handoff;
	/* The queue: one slot (a newer frame replaces a waiting one, which goes straight back). */
	_Atomic(struct pw_buffer *) waiting;
	sem_t wakeup;
	/* Buffers the delivery thread is done with, one bit per index in `buffers`. */
	_Atomic(uint64_t) released;
	struct pw_buffer *buffers[MAX_BUFFERS];
	int buffer_count;
	unsigned long taken, delivered;
	atomic_int running;
};

/* A buffer's index + 1 rides in its user_data (0: not known). */
static int index_of(struct pw_buffer *b)
{
	return (int)(intptr_t)b->user_data - 1;
}

static void on_add_buffer(void *data, struct pw_buffer *b)
{
	struct consumer *c = data;
	if (c->buffer_count < MAX_BUFFERS) {
		c->buffers[c->buffer_count] = b;
		b->user_data = (void *)(intptr_t)(++c->buffer_count);
	}
}

static void on_remove_buffer(void *data, struct pw_buffer *b)
{
	struct consumer *c = data;
	int i = index_of(b);
	if (i >= 0)
		c->buffers[i] = NULL;
	b->user_data = NULL;
}

/* ---- extra work for the cost probe (KIND) ---- */
enum extra { EXTRA_NONE, EXTRA_DIRECT, EXTRA_INDIRECT, EXTRA_STRAIGHT, EXTRA_DATA };
static enum extra extra;
/* 256 functions, each on a 64-byte line of its own (__COUNTER__ keeps their bodies apart, so none is folded). */
#define PROBE_FN(n) __attribute__((noinline, aligned(64))) static unsigned long probe_##n(unsigned long x) \
	{ __asm__ volatile("" : "+r"(x)); return x * 3 + __COUNTER__; }
#define PROBE_REF(n) probe_##n,
#define PROBE_CALL(n) x = probe_##n(x);
#define D4(m, p) m(p##0) m(p##1) m(p##2) m(p##3)
#define D16(m, p) D4(m, p##0) D4(m, p##1) D4(m, p##2) D4(m, p##3)
#define D64(m, p) D16(m, p##0) D16(m, p##1) D16(m, p##2) D16(m, p##3)
#define D256(m) D64(m, 0) D64(m, 1) D64(m, 2) D64(m, 3)
D256(PROBE_FN)
static unsigned long (*const probe_table[256])(unsigned long) = { D256(PROBE_REF) };
__attribute__((noinline)) static unsigned long probe_direct(unsigned long x) { D256(PROBE_CALL) return x; }
__attribute__((noinline)) static unsigned long probe_indirect(unsigned long x)
{
	for (int i = 0; i < 256; i++)
		x = probe_table[i](x);
	return x;
}
/* 200 lines of code with no branch: 3200 four-byte instructions in four independent chains. */
__attribute__((noinline, aligned(64))) static unsigned long probe_straight(unsigned long x)
{
	unsigned long a = x, b = 0, d = 0, e = 0;
	__asm__ volatile(".rept 800\n\tlea 1(%0),%0\n\tlea 1(%1),%1\n\tlea 1(%2),%2\n\tlea 1(%3),%3\n\t.endr"
			 : "+r"(a), "+r"(b), "+r"(d), "+r"(e));
	return a + b + d + e;
}
static volatile unsigned char probe_area[64 * 4096];
static unsigned long probe_data(unsigned long x)
{
	for (int i = 0; i < 256; i++)
		x += probe_area[(size_t)i * 1024 + (size_t)(i % 16) * 64];
	return x;
}
static volatile unsigned long probe_sink;
static void extra_work(void)
{
	switch (extra) {
	case EXTRA_NONE: return;
	case EXTRA_DIRECT: probe_sink = probe_direct(probe_sink); return;
	case EXTRA_INDIRECT: probe_sink = probe_indirect(probe_sink); return;
	case EXTRA_STRAIGHT: probe_sink = probe_straight(probe_sink); return;
	case EXTRA_DATA: probe_sink = probe_data(probe_sink); return;
	}
}

static void on_process(void *data)
{
	struct consumer *c = data;
	extra_work();
	struct pw_buffer *b, *newest = NULL;

	if (!c->handoff) {
		while ((b = pw_stream_dequeue_buffer(c->stream)) != NULL) {
			c->taken++;
			pw_stream_queue_buffer(c->stream, b);
		}
		return;
	}
	uint64_t done = atomic_exchange_explicit(&c->released, 0, memory_order_acquire);
	while (done) {
		int i = __builtin_ctzll(done);
		done &= done - 1;
		if (c->buffers[i])
			pw_stream_queue_buffer(c->stream, c->buffers[i]);
	}
	while ((b = pw_stream_dequeue_buffer(c->stream)) != NULL) {
		if (newest)
			pw_stream_queue_buffer(c->stream, newest);
		newest = b;
	}
	if (!newest)
		return;
	c->taken++;
	struct pw_buffer *dropped = atomic_exchange_explicit(&c->waiting, newest, memory_order_acq_rel);
	if (dropped)
		pw_stream_queue_buffer(c->stream, dropped);
	sem_post(&c->wakeup);
}

static void *deliver(void *data)
{
	struct consumer *c = data;
	while (atomic_load(&c->running)) {
		while (sem_wait(&c->wakeup) != 0 && errno == EINTR)
			;
		struct pw_buffer *b = atomic_exchange_explicit(&c->waiting, NULL, memory_order_acq_rel);
		if (!b)
			continue;
		struct spa_data *d = &b->buffer->datas[0];
		if (d->data)
			(void)*(volatile uint8_t *)d->data;
		c->delivered++;
		int i = index_of(b);
		if (i >= 0)
			atomic_fetch_or_explicit(&c->released, 1ull << i, memory_order_release);
	}
	return NULL;
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.add_buffer = on_add_buffer,
	.remove_buffer = on_remove_buffer,
	.process = on_process,
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

int main(int argc, char *argv[])
{
	static const char *const kinds[] = { "", "direct", "indirect", "straight", "data" };
	if (argc == 4 && !strcmp(argv[2], "handoff"))
		for (int k = 1; k < 5; k++)
			if (!strcmp(argv[3], kinds[k]))
				extra = (enum extra)k;
	if ((argc != 3 && !(argc == 4 && extra != EXTRA_NONE)) || (strcmp(argv[2], "handoff") && strcmp(argv[2], "stream"))) {
		fprintf(stderr, "usage: floor NODE handoff|stream, or floor NODE handoff direct|indirect|straight|data\n");
		return 2;
	}
	/* Written once, so that its 64 pages are pages of their own: untouched, they would all read the one zero page. */
	if (extra == EXTRA_DATA)
		memset((void *)probe_area, 1, sizeof(probe_area));
	pw_init(&argc, &argv);
	struct consumer c = { .handoff = strcmp(argv[2], "handoff") == 0, .running = 1 };
	sem_init(&c.wakeup, 0, 0);
	pthread_t delivery;
	if (c.handoff)
		pthread_create(&delivery, NULL, deliver, &c);

	c.loop = pw_thread_loop_new("floor", NULL);
	pw_thread_loop_lock(c.loop);
	pw_thread_loop_start(c.loop);
	c.stream = pw_stream_new_simple(pw_thread_loop_get_loop(c.loop), "pwrecord-bench-floor",
		pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
				  PW_KEY_MEDIA_ROLE, "Screen", NULL),
		&stream_events, &c);
	uint8_t pod[1024];
	struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod, sizeof(pod));
	const struct spa_pod *params[1];
	params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
		SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
		SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
		SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(5, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx,
			SPA_VIDEO_FORMAT_RGBx, SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBA),
		SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&SPA_RECTANGLE(1920, 1080),
			&SPA_RECTANGLE(1, 1), &SPA_RECTANGLE(8192, 8192)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(60, 1),
			&SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)));
	int rc = pw_stream_connect(c.stream, PW_DIRECTION_INPUT, (uint32_t)atoi(argv[1]),
		PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
	pw_thread_loop_unlock(c.loop);
	if (rc < 0) {
		fprintf(stderr, "floor: pw_stream_connect: %s\n", strerror(-rc));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop)
		pause();

	/* The delivery thread goes first: it may be reading a buffer the stream's destruction frees. */
	if (c.handoff) {
		atomic_store(&c.running, 0);
		sem_post(&c.wakeup);
		pthread_join(delivery, NULL);
	}
	pw_thread_loop_lock(c.loop);
	pw_stream_destroy(c.stream);
	pw_thread_loop_unlock(c.loop);
	pw_thread_loop_stop(c.loop);
	printf("floor %s: %lu frames taken, %lu delivered\n", argv[2], c.taken, c.delivered);
	pw_thread_loop_destroy(c.loop);
	return 0;
}
