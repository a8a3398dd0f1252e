#!/bin/bash
# deps.sh: what `make bench` needs beyond the kit's own build, installed when missing:
# Debian packages (wrk, nginx, jq, Node and npm, python3) and the npm package
# @dwmkerr/mock-llm, pinned, under bench/.cache/npm (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."

MOCK_LLM_VERSION=0.1.29
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v jq >/dev/null || need+=(jq)
command -v python3 >/dev/null || need+=(python3)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench/deps.sh: installing ${need[*]}"
  if [ "$(id -u)" != 0 ]; then
    echo "bench/deps.sh: not root: run apt-get install ${need[*]} yourself" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

pkg=bench/.cache/npm/node_modules/@dwmkerr/mock-llm/package.json
if [ ! -f "$pkg" ] || ! grep -q "\"version\": \"$MOCK_LLM_VERSION\"" "$pkg"; then
  echo "bench/deps.sh: npm install @dwmkerr/mock-llm@$MOCK_LLM_VERSION under bench/.cache/npm"
  mkdir -p bench/.cache/npm
  npm install --prefix bench/.cache/npm --no-audit --no-fund --loglevel=error \
    "@dwmkerr/mock-llm@$MOCK_LLM_VERSION" >/dev/null
fi
