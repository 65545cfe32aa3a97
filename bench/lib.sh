# Set-up the benchmark scripts share (bench/*/run, bench/capture/footprint); sourced from the repository root
# after `set -euo pipefail`. Each function names the calling script in its errors (BENCH_NAME).

export PATH="/opt/swift/usr/bin:$PATH"
BENCH_NAME=${BENCH_NAME:-bench}
bench_started_desktop=0

bench_fail() { echo "$BENCH_NAME: $*" >&2; exit 1; }

# bench_build [PRODUCT]: builds PRODUCT (pwrecord-bench) in release mode through scripts/build-release, as
# every measured binary is; prints only errors and warnings not about the package's own flags. Sets BIN to
# pwrecord-bench and RELEASE to the release folder.
bench_build() {
  local product=${1:-pwrecord-bench}
  scripts/build-release --product "$product" 2>&1 | grep -E "error|warning: [^p]" >&2 || true
  RELEASE=$(scripts/build-release --show-bin-path)
  BIN=$RELEASE/pwrecord-bench
  [ -x "$RELEASE/$product" ] || bench_fail "the build of $product failed"
}

# bench_build_floor: the design in C (bench/capture/floor.c) at bench/out/capture-floor; sets FLOOR.
bench_build_floor() {
  mkdir -p bench/out
  FLOOR=bench/out/capture-floor
  gcc -O2 -Wall -o "$FLOOR" bench/capture/floor.c $(pkg-config --cflags --libs libpipewire-0.3) -lpthread \
    || bench_fail "floor.c did not build"
}

# bench_start_desktop LOG: starts the headless desktop (scripts/test-desktop) unless one runs
# (PWRECORD_TEST_DESKTOP=1), its log to LOG; bench_stop_desktop stops it only if this script started it.
bench_start_desktop() {
  [ "${PWRECORD_TEST_DESKTOP:-}" = 1 ] && return 0
  local env
  env=$(scripts/test-desktop start --quiet 2>"$1") || { cat "$1" >&2; exit 1; }
  eval "$env"
  bench_started_desktop=1
}
bench_stop_desktop() {
  [ "$bench_started_desktop" = 1 ] && scripts/test-desktop stop "$PWRECORD_DESKTOP_DIR" 2>/dev/null || true
  bench_started_desktop=0
}

# bench_start_producer PREFIX W H FPS: `pwrecord-bench produce` (another process, a driver node painting
# frames) into PREFIX.out, PREFIX.err and PREFIX.status (frames queued, ticks missed); waits for its node.
# Sets NODE and producer (its pid).
bench_start_producer() {
  local prefix=$1
  : >"$prefix.out"; rm -f "$prefix.status"
  "$BIN" produce --width "$2" --height "$3" --fps "$4" --status "$prefix.status" >"$prefix.out" 2>"$prefix.err" &
  producer=$!
  NODE=""
  local i
  for i in $(seq 200); do NODE=$(awk '/^node /{print $2}' "$prefix.out"); [ -n "$NODE" ] && break; sleep 0.05; done
  [ -n "$NODE" ] || { echo "$BENCH_NAME: the producer did not start:" >&2; cat "$prefix.err" >&2; exit 1; }
}
bench_stop_producer() {
  [ -n "${producer:-}" ] && kill -TERM "$producer" 2>/dev/null && wait "$producer" 2>/dev/null || true
  producer=""
}
