#!/usr/bin/env bash
# install_missing PKG...: installs the Debian packages that are not yet
# installed (apt-get, as root or through sudo). Sourced by setup.sh and
# fuzz.sh.
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # nvdisasm for the static report's SASS (bench/gpu/static_report.py),
  # into a cache folder, once: optional, so a failed download only warns.
  local nvdisasm
  if nvdisasm=$(bash "$(dirname "${BASH_SOURCE[0]}")/get-nvdisasm.sh"); then
    echo "== nvdisasm: $nvdisasm"
  else
    echo "== warning: no nvdisasm: the static report will have no SASS columns" >&2
  fi
}
