#!/usr/bin/env bash
# Fetches nvdisasm (CUDA 11.8, from Debian bookworm's non-free
# nvidia-cuda-toolkit package) into a cache folder and prints its path. The
# static report (bench/gpu/static_report.py) reads SASS with it: CUDA 13's
# install has ptxas but no nvdisasm. Only nvdisasm (it needs libc alone) and
# the package's copyright file are kept; apt reads a sources file of its own
# and keeps its lists in a scratch folder: /etc/apt and the installed
# packages are left as they are. Skips the download when the copy is there.
# Usage: scripts/get-nvdisasm.sh   (folder: $INDEXPOOL_NVDISASM_DIR, default
#        ${XDG_CACHE_HOME:-$HOME/.cache}/indexpool/nvdisasm-11.8)
set -euo pipefail

DIR=${INDEXPOOL_NVDISASM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/indexpool/nvdisasm-11.8}
if [ -x "$DIR/nvdisasm" ] && "$DIR/nvdisasm" --version >/dev/null 2>&1; then
  echo "$DIR/nvdisasm"
  exit 0
fi

fail() { echo "get-nvdisasm: $*" >&2; exit 1; }
for tool in apt-get dpkg-deb; do
  command -v $tool >/dev/null || fail "needs $tool (Debian)"
done
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || fail "no $KEYRING (package debian-archive-keyring)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/deb"
cat > "$WORK/bookworm-non-free.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free contrib
Signed-By: $KEYRING
EOF
# Sandbox::User=root: the scratch folders belong to the caller, not _apt.
APT=(apt-get -q -o "Dir::Etc::sourcelist=$WORK/bookworm-non-free.sources"
     -o Dir::Etc::sourceparts=/dev/null -o "Dir::State::Lists=$WORK/lists"
     -o "Dir::Cache=$WORK/cache" -o APT::Sandbox::User=root)
echo "get-nvdisasm: downloading nvidia-cuda-toolkit (about 84 MB) from deb.debian.org" >&2
"${APT[@]}" update --error-on=any >"$WORK/apt.log" 2>&1 \
  || { cat "$WORK/apt.log" >&2; fail "apt-get update of bookworm non-free failed"; }
(cd "$WORK/deb" && "${APT[@]}" download nvidia-cuda-toolkit) >>"$WORK/apt.log" 2>&1 \
  || { tail -5 "$WORK/apt.log" >&2; fail "could not download nvidia-cuda-toolkit"; }
DEBS=("$WORK"/deb/nvidia-cuda-toolkit_*.deb)
DEB=${DEBS[0]}
[ -f "$DEB" ] || fail "apt-get download wrote no .deb"
mkdir -p "$WORK/x"
dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$WORK/x" ./usr/bin/nvdisasm \
  ./usr/share/doc/nvidia-cuda-toolkit/copyright \
  || fail "no usr/bin/nvdisasm in $(basename "$DEB")"
"$WORK/x/usr/bin/nvdisasm" --version >/dev/null 2>&1 \
  || fail "the extracted nvdisasm does not run here"
mkdir -p "$DIR"
cp "$WORK/x/usr/share/doc/nvidia-cuda-toolkit/copyright" "$DIR/copyright"
# Copy, then rename: a run killed half way leaves no broken nvdisasm behind.
cp "$WORK/x/usr/bin/nvdisasm" "$DIR/nvdisasm.tmp"
mv "$DIR/nvdisasm.tmp" "$DIR/nvdisasm"
echo "$DIR/nvdisasm"
