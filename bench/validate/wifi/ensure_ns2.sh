#!/usr/bin/env bash
# Installs ns-2.35 from Debian's packages if `ns` is missing (apt-get update once, then
# apt-get install -y ns2). Sourced by the run_*.sh scripts of this folder.
if ! command -v ns > /dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "wifi: installing ns2" >&2
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y ns2
fi
command -v ns > /dev/null 2>&1 || { echo "wifi: ns (ns-2.35) not available after install" >&2; exit 2; }
