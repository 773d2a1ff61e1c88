#!/usr/bin/env bash
# Sets up `th` on a fresh Debian 12 machine with a Rust toolchain (rustup's; Debian 12's own cargo
# is older than this crate's edition) and starts it: the system packages it builds with and loads
# at run time, then `cargo install` of th and thcluster
# (into ~/.cargo/bin), then th itself with this script's arguments (`scripts/setup.sh -e "..."`).
#
#   scripts/setup.sh --print-runtime-packages   the packages th loads at run time, one line
#                                               (.ci/run installs the same list)
set -euo pipefail

# What th loads at run time, and why (README: "What `th` uses from the system"):
#   libopenblas-dev  Float/Double matrix products (BLAS) and torch's LAPACK functions
#   lua-penlight     lapp and penlight's modules, which trepl gave every script as globals
#   lua-filesystem   lfs, which penlight's path and dir modules load
#   lua-cjson        cjson, the JSON module Torch projects require
#   lua-md5          md5, which torchnet's utilities require
#   gnuplot-nox      the gnuplot package's plots and optim.Logger:plot (rendered to files)
RUNTIME_PACKAGES=(libopenblas-dev lua-penlight lua-filesystem lua-cjson lua-md5 gnuplot-nox)
# What the build needs: gcc and make for the vendored LuaJIT and libzmq; nasm for libjpeg-turbo's
# SIMD code in image's JPEG codec (without it JPEG builds and decodes the same, more slowly).
BUILD_PACKAGES=(build-essential nasm)
# What `luarocks make` of Torch rocks runs: luarocks, and cmake for their CMakeLists.txt.
ROCKS_PACKAGES=(luarocks cmake)

if [ "${1:-}" = "--print-runtime-packages" ]; then
  echo "${RUNTIME_PACKAGES[*]}"
  exit 0
fi

cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${BUILD_PACKAGES[@]}" "${RUNTIME_PACKAGES[@]}" \
  "${ROCKS_PACKAGES[@]}" >/dev/null

export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
  echo "scripts/setup.sh: no cargo on PATH: install a Rust toolchain with rustup, then run this again" >&2
  exit 1
fi

cargo install --locked --path .
# The luarocks tree for Torch rocks (/usr/local as root, else ~/.luarocks): TorchConfig.cmake and
# entries for the packages th has built in, so `luarocks make` of a Torch rock works offline.
th --setup-rocks >/dev/null
exec th "$@"
