#!/usr/bin/env bash
# Installs what the harness needs on a fresh Debian machine: Verilator and the
# other tools from Debian's packages, and the Go modules. Safe to run again.
set -euo pipefail

packages=(verilator yosys lcov gtkwave g++ make zlib1g-dev thrift-compiler)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v go >/dev/null || { echo "setup: Go is not on PATH (needs Go 1.26)" >&2; exit 1; }
go mod download
echo "setup: $(verilator --version), $(go version | cut -d' ' -f3)"
