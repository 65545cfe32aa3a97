/*
 * A reproduction, not a benchmark: a consumer that keeps one buffer at a time for HOLD_MS and queues every
 * other buffer back at once, with `process` on PipeWire's data thread (RT 1) or on the loop thread (RT 0),
 * printing how many buffers it received each second. It shows, without any of our code, what
 * `VideoCaptureOptions.processThread = .loop` meets (docs/pipewire.md): against a 60 fps producer with 4
 * buffers, holding 40 ms gives 60 buffers a second on the data thread but 40 on the loop thread, while the
 * producer queues 60 and misses no tick.
 *
 *   gcc -O2 -o loop-hold bench/capture/loop-hold.c $(pkg-config --cflags --libs libpipewire-0.3)
 *   pwrecord-bench produce --width 320 --height 240 --fps 60 &     # prints "node N"
 *   ./loop-hold N 0 40
 */
#define _GNU_SOURCE
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
struct c { struct pw_thread_loop *loop; struct pw_stream *stream; int rt, holdms;
  struct pw_buffer *held; uint64_t held_at; unsigned long received, held_n; };
static uint64_t now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec*1000ull + t.tv_nsec/1000000; }
static void on_process(void *d) {
  struct c *c = d; struct pw_buffer *b;
  if (c->held && now_ms() - c->held_at >= (uint64_t)c->holdms) { pw_stream_queue_buffer(c->stream, c->held); c->held = NULL; }
  while ((b = pw_stream_dequeue_buffer(c->stream)) != NULL) {
    c->received++;
    if (!c->held) { c->held = b; c->held_at = now_ms(); c->held_n++; }
    else pw_stream_queue_buffer(c->stream, b);
  }
}
static const struct pw_stream_events ev = { PW_VERSION_STREAM_EVENTS, .process = on_process };
static volatile sig_atomic_t stop; static void onsig(int s) { (void)s; stop = 1; }
int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: loop-hold NODE RT(0|1) HOLD_MS\n"); return 2; }
  pw_init(&argc, &argv);
  struct c c = { .rt = atoi(argv[2]), .holdms = atoi(argv[3]) };
  c.loop = pw_thread_loop_new("hold", NULL); pw_thread_loop_lock(c.loop); pw_thread_loop_start(c.loop);
  c.stream = pw_stream_new_simple(pw_thread_loop_get_loop(c.loop), "hold",
     pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Screen", NULL), &ev, &c);
  uint8_t buf[1024]; struct spa_pod_builder bld = SPA_POD_BUILDER_INIT(buf, sizeof(buf)); const struct spa_pod *params[1];
  params[0] = spa_pod_builder_add_object(&bld, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
     SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
     SPA_FORMAT_VIDEO_format, SPA_POD_CHOICE_ENUM_Id(3, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_RGBx),
     SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&SPA_RECTANGLE(320,240), &SPA_RECTANGLE(1,1), &SPA_RECTANGLE(8192,8192)),
     SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(60,1), &SPA_FRACTION(0,1), &SPA_FRACTION(1000,1)));
  pw_stream_connect(c.stream, PW_DIRECTION_INPUT, atoi(argv[1]), PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | (c.rt ? PW_STREAM_FLAG_RT_PROCESS : 0), params, 1);
  pw_thread_loop_unlock(c.loop);
  signal(SIGINT, onsig); signal(SIGTERM, onsig);
  unsigned long last = 0;
  while (!stop) { sleep(1); pw_thread_loop_lock(c.loop); fprintf(stderr, "received/s %lu held %lu\n", c.received - last, c.held_n); last = c.received; pw_thread_loop_unlock(c.loop); }
  pw_thread_loop_lock(c.loop); pw_stream_destroy(c.stream); pw_thread_loop_unlock(c.loop); pw_thread_loop_stop(c.loop);
  return 0;
}
