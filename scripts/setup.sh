#!/usr/bin/env bash
# Installs dependencies exactly as locked and builds (npm ci runs `prepare` → `npm run build`).
# The Electron binary and onnxruntime's native download are skipped: neither can be fetched on the
# machines this project builds on, and nothing outside the desktop shell needs them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export ELECTRON_SKIP_BINARY_DOWNLOAD=1
export ONNXRUNTIME_NODE_INSTALL=skip

npm ci --no-audit --no-fund
