#!/bin/bash
# CPU seconds per second of video of pwrecord's EncoderSink against the ffmpeg CLI, on the same frames with
# the same settings (1080p60 TestPattern, x264 ultrafast, crf 23, yuv420p, Matroska), in one run.
# Frames are synthetic (the same second of pictures repeated); the capture path is not part of this.
#   bench/encoder.sh [seconds=10] [config=release]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_OF_VIDEO=${1:-10}
CONFIG=${2:-release}
W=1920 H=1080 FPS=60
swift build -c "$CONFIG" --product SinkTestHelper >/dev/null
BIN=$(swift build -c "$CONFIG" --show-bin-path)/SinkTestHelper
OUT=$(mktemp -d /tmp/pwrecord-bench-XXXXXX)
trap 'rm -rf "$OUT"' EXIT

"$BIN" rawframes "$OUT/frames.raw" $W $H $FPS
"$BIN" bench "$OUT/pwrecord.mkv" $W $H $FPS "$SECONDS_OF_VIDEO" | tee "$OUT/ours.txt"
ours=$(sed -n 's/.*cpu per video second \([0-9.e-]*\).*/\1/p' "$OUT/ours.txt")

/usr/bin/time -f "%U %S" -o "$OUT/time.txt" ffmpeg -v error -y -stream_loop $((SECONDS_OF_VIDEO - 1)) \
    -f rawvideo -pix_fmt bgr0 -s ${W}x${H} -r $FPS -i "$OUT/frames.raw" \
    -c:v libx264 -preset ultrafast -crf 23 -pix_fmt yuv420p "$OUT/ffmpeg.mkv"
theirs=$(awk -v s="$SECONDS_OF_VIDEO" '{ print ($1 + $2) / s }' "$OUT/time.txt")
echo "ffmpeg CLI: cpu per video second $theirs"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$OUT/ffmpeg.mkv")
echo "ffmpeg CLI wrote $frames frames"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "ratio pwrecord/ffmpeg: %.2f (target <= 0.6)\n", a / b }'
