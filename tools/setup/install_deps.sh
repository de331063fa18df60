#!/usr/bin/env bash
# Installs the Debian packages AMPRT builds against, only those that are missing.
# Idempotent: a second run installs nothing and prints "all dependencies present".
# CUDA 13 (nvcc, cuBLAS, cuDNN 9) is expected preinstalled under /usr/local/cuda; without it
# the CUDA backend is simply not built (AMP_ENABLE_CUDA=AUTO).
set -euo pipefail

packages=(
  cmake ninja-build g++
  libflatbuffers-dev flatbuffers-compiler
  nlohmann-json3-dev
  libgtest-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev
  # Debian's dnnl-config.cmake requires OpenCL (its GPU runtime is OCL) although we only use
  # the CPU engine; libdnnl-dev merely recommends this, so --no-install-recommends skips it.
  ocl-icd-opencl-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all dependencies present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install_deps: done"
