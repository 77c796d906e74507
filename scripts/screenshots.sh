#!/usr/bin/env bash
# Renders each view of the GUI on real 2 x H200 traces to docs/screenshots/*.png, offscreen
# (QT_QPA_PLATFORM=offscreen: no display needed), through the GUI's own --screenshot/--show/
# --dock-size/--find options, and the report's page through `parascope-cli report` + pdftoppm.
#   scripts/screenshots.sh [BUILD_DIR]     (default build/dev; needs parascope and parascope-cli)
# The inputs are copied to a temporary directory first (the GUI writes notes beside a trace) and
# the GUI's settings live there too, so every run starts from the same window layout.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
gui=$build/app/gui/parascope
cli=$build/app/cli/parascope-cli
out=docs/screenshots
for b in "$gui" "$cli"; do
  [ -x "$b" ] || { echo "screenshots: $b not built (cmake --build $build --target parascope parascope-cli)" >&2; exit 1; }
done
command -v pdftoppm >/dev/null || { echo "screenshots: pdftoppm missing (apt-get install poppler-utils)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/runtime HOME=$tmp/home
mkdir -p "$XDG_RUNTIME_DIR" "$HOME" && chmod 700 "$XDG_RUNTIME_DIR"
cp -r resources/captures/h200x2_2026-11-30/tp_overlap_b1 "$tmp/tp_overlap_b1"          # Kineto, TP MLP + overlapped all-reduce
cp -r resources/samples/record_torch_nccl_2xh200 "$tmp/record_torch_nccl_2xh200"         # collector, measured NVLink counters
cp -r resources/samples/fused_probe_2xh200 "$tmp/fused_probe_2xh200"                     # per-SM probe lanes
cp -r resources/captures/h200x2_2026-11-30/tp_serial_b1 "$tmp/tp_serial_b1"              # TP step, serial all-reduce
cp -r resources/captures/h200x2_2026-11-30/tp_serial_b1_nch4 "$tmp/tp_serial_b1_nch4"    # the same with NCCL on 4 channels
mkdir -p "$out"

shot() {  # shot NAME INPUT [gui options...]
  local name=$1 input=$2
  shift 2
  rm -rf "$XDG_CONFIG_HOME"
  "$gui" --screenshot "$out/$name.png" --size 1600x900 "$@" "$input" >/dev/null
  echo "$out/$name.png"
}

shot timeline "$tmp/tp_overlap_b1" --show stats --dock-size 200
shot overlap "$tmp/tp_overlap_b1" --find ncclDevKernel_AllReduce --show overlap --dock-size 560
shot links "$tmp/record_torch_nccl_2xh200" --show links --dock-size 420
shot topology "$tmp/record_torch_nccl_2xh200" --show topology --dock-size 620
shot roofline "$tmp/tp_overlap_b1" --show roofline --dock-size 460
shot kernel_stats "$tmp/tp_overlap_b1" --show stats --dock-size 380
shot whatif "$tmp/tp_serial_b1" --show whatif --dock-size 520 --whatif "channels=4"
shot diff "$tmp/tp_serial_b1" --show diff --dock-size 520 --compare "$tmp/tp_serial_b1_nch4"

# the report: the what-if page of the capture's PDF report (the page whose text starts "What-if")
"$cli" report -q "$tmp/tp_overlap_b1" --whatif comm_stream=side -o "$tmp/report.pdf" >/dev/null
page=$(for p in $(seq 1 "$(pdfinfo "$tmp/report.pdf" | awk '/^Pages:/ {print $2}')"); do
  pdftotext -f "$p" -l "$p" "$tmp/report.pdf" - | grep -q '^What-if$' && { echo "$p"; break; }
done)
pdftoppm -r 110 -f "${page:-1}" -l "${page:-1}" -singlefile -png "$tmp/report.pdf" "$out/report"
echo "$out/report.png (page ${page:-1} of the PDF report)"
