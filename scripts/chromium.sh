#!/usr/bin/env bash
# Headless Chromium and its WebDriver for the console's browser tests (tests/tests/console.rs):
# installs Debian's `chromium` and `chromium-driver` when missing (apt-get, as root or
# through passwordless sudo), then prints `export CHROMEDRIVER=... CHROMIUM=...` for eval.
# Idempotent: with both present it installs nothing. A failed install is an error (the
# browser tests are `#[ignore]`d, and scripts/test.sh runs them).
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if ! have chromedriver || ! have chromium; then
  sudo=""
  if [ "$(id -u)" != 0 ] && have sudo && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
  if have apt-get && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
    echo "installing chromium and chromium-driver with apt-get (once)" >&2
    log="$(mktemp)"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
        --no-install-recommends chromium chromium-driver; } >"$log" 2>&1; then
      tail -n 20 "$log" >&2
    fi
    rm -f "$log"
  fi
fi

if have chromedriver && have chromium; then
  echo "export CHROMEDRIVER=$(command -v chromedriver) CHROMIUM=$(command -v chromium)"
else
  echo "chromium and chromium-driver are missing and could not be installed" >&2
  exit 1
fi
