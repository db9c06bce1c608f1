#!/usr/bin/env bash
# Installs dependencies exactly as locked and builds (npm ci runs `prepare` → `npm run build`); then
# ./witness at the repository root runs this checkout's CLI.
# The Electron binary and onnxruntime's native download are skipped: neither can be fetched on the
# machines this project builds on, and nothing outside the desktop shell needs them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Debian packages, installed only when missing (as root, or through sudo when available):
# python3-numpy is the real .npz reader the dataset export is checked against in the tests;
# chromium is the browser the end-to-end tests drive (playwright-core, web mode).
apt_packages=()
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then apt_packages+=(python3-numpy); fi
if [ ! -x /usr/bin/chromium ]; then apt_packages+=(chromium); fi
if ((${#apt_packages[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "setup: please install ${apt_packages[*]} (apt-get install ${apt_packages[*]}); the tests need it" >&2
    fi
  fi
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    echo "setup: installing ${apt_packages[*]}"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}"
  fi
fi

export ELECTRON_SKIP_BINARY_DOWNLOAD=1
export ONNXRUNTIME_NODE_INSTALL=skip

npm ci --no-audit --no-fund

echo "setup: done. Run this checkout's command line from the repository root as ./witness (./witness --help lists"
echo "       the commands; ./witness run … is the README's mission), the tests as npm test."
