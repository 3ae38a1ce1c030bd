#!/usr/bin/env bash
# Renders an HTML page of packetsim (`packetsim report DIR` -> DIR/index.html, or a page of
# `packetsim reproduce`: OUT/index.html, OUT/STUDY/index.html) in headless
# Chromium and fails when a figure did not render or the page logged a console error; writes a
# screenshot beside the page (index.png) to look at.
#
#   bench/html-check.sh out/run/index.html [--install]
#
# --install: install Chromium from Debian's packages first when it is missing (as setup.sh
# installs ns-2/ns-3; needs root or password-less sudo).
set -euo pipefail
page=${1:?usage: bench/html-check.sh PAGE.html [--install]}
[ -f "$page" ] || { echo "html-check: $page: no such file" >&2; exit 2; }
if [ "${2:-}" = "--install" ] && ! command -v chromium > /dev/null; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi
    echo "html-check: installing chromium" >&2
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi
command -v chromium > /dev/null || { echo "html-check: chromium not installed (Debian: apt-get install chromium, or pass --install)" >&2; exit 2; }

abs=$(readlink -f "$page")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile"
       --enable-logging=stderr --v=0)
# The DOM after rendering, and the console messages Chromium logs.
chromium "${flags[@]}" --dump-dom "file://$abs" > "$tmp/dom.html" 2> "$tmp/log" || {
    cat "$tmp/log" >&2; echo "html-check: chromium failed" >&2; exit 1; }
chromium "${flags[@]}" --window-size=1100,3000 --screenshot="${abs%.html}.png" "file://$abs" \
    > /dev/null 2>> "$tmp/log"

fail=0
want=$(grep -c '<figure' "$page" || true)
got=$(tr -d '\n' < "$tmp/dom.html" | { grep -o '<figure[^>]*> *<svg' || true; } | wc -l)
if [ "$want" != "$got" ]; then
    echo "html-check: $want figures in the page, $got rendered with their SVG" >&2
    fail=1
fi
# An <img> would need its file: every src must exist (the reports inline their figures).
{ grep -o '<img[^>]*src="[^"]*"' "$tmp/dom.html" || true; } | sed 's/.*src="//; s/"$//' | while read -r src; do
    case "$src" in data:*) continue ;; esac
    [ -f "$(dirname "$abs")/$src" ] || { echo "html-check: missing image $src" >&2; exit 1; }
done || fail=1
if grep -E 'CONSOLE|Uncaught' "$tmp/log" > "$tmp/console"; then
    echo "html-check: console errors:" >&2
    cat "$tmp/console" >&2
    fail=1
fi
[ -s "${abs%.html}.png" ] || { echo "html-check: no screenshot" >&2; fail=1; }
if [ "$fail" = 0 ]; then
    echo "html-check: ok: $got figures rendered, no console error; screenshot ${abs%.html}.png"
fi
exit $fail
