#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what bitcts needs from Debian's packages (run as root, or with sudo available).
# Installs nothing when everything is already there. --with-browser adds Chromium, which the
# tests use to render the HTML report headless. --with-lanes adds what the sanitizer lanes of
# tools/test.sh and the fuzzers of tools/fuzz.sh use: valgrind, clang with its sanitizer and
# libFuzzer runtimes (libclang-rt-dev) and llvm-symbolizer (llvm); GCC's ASan, UBSan and TSan
# runtimes come with build-essential. --with-slurm adds a Slurm controller, node daemon, client
# and munge (tests/nightly/slurm_night.sh starts them itself; nothing here starts a service).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config git libxxhash-dev libjansson-dev
          libvulkan-dev libvulkan-volk-dev glslc mesa-vulkan-drivers vulkan-validationlayers python3
          python3-numpy python3-yaml
          libxml2-utils clang-format clang-tidy clang-tools)
for arg in "$@"; do
    case "$arg" in
    --with-browser) packages+=(chromium) ;;
    --with-lanes) packages+=(valgrind clang libclang-rt-dev llvm) ;;
    --with-slurm) packages+=(slurmctld slurmd slurm-client munge) ;;
    *) echo "usage: tools/setup.sh [--with-browser] [--with-lanes] [--with-slurm]" >&2; exit 2 ;;
    esac
done
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present"
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
    sudo=sudo
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
