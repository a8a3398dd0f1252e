#!/bin/sh
# Installs the Debian packages OCK builds and tests with, when any is missing.
# Called by the Makefile before every build, so a fresh Debian 12 machine needs
# nothing but `make`. As root it runs apt-get; otherwise it names the packages. python3-venv
# gives `python3 -m venv` its pip (make venv: build/venv from adapters/python/requirements.lock).
set -eu

PACKAGES="${OCK_PACKAGES:-gcc make pkg-config libcjson-dev libcurl4-openssl-dev libcunit1-dev libmicrohttpd-dev lcov valgrind curl python3 python3-venv}"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "ock: missing Debian packages:$missing" >&2
  echo "ock: install them with: sudo apt-get install -y$missing" >&2
  exit 1
fi

echo "ock: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
