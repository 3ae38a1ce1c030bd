#!/usr/bin/env bash
# Installs the benchmark peers (ns-2.35, ns-3.37) and the tools compare.sh needs, from Debian's
# packages. Idempotent: installs only what is missing, then checks that everything works.
set -euo pipefail

NS3_MODULES="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
PKGS=(ns2 ns3 libns3-dev libgsl-dev time pkg-config g++)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${missing[@]}"
else
    echo "setup: all packages present" >&2
fi

fail=0
# ns-2: the interpreter must run a script and report 2.35.
tmp=$(mktemp --suffix=.tcl)
trap 'rm -f "$tmp"' EXIT
echo 'puts [ns-version]; exit 0' > "$tmp"
if ver=$(ns "$tmp" 2>/dev/null) && [ -n "$ver" ]; then
    echo "setup: ns-2 ok (version $ver)" >&2
else
    echo "setup: ns (ns-2) does not run" >&2
    fail=1
fi
# ns-3: the pkg-config modules must resolve (Debian names them ns3-<module>, version 3.37).
if pkg-config --cflags --libs $NS3_MODULES > /dev/null 2>&1; then
    echo "setup: ns-3 ok (pkg-config ns3-core $(pkg-config --modversion ns3-core))" >&2
else
    echo "setup: pkg-config cannot resolve: $NS3_MODULES" >&2
    fail=1
fi
if [ ! -x /usr/bin/time ]; then
    echo "setup: /usr/bin/time missing" >&2
    fail=1
fi
exit $fail
