#!/usr/bin/env bash
# Builds htsim's libraries from a source directory and links the two peers against them:
# bench/htsim/dumbbell.cc (htsim-dumbbell) and bench/htsim/fattree.cc (htsim-fattree).
# Fetches nothing: htsim is in no package registry, get its source yourself (e.g. a clone of
# github.com/ultraethernet/uet-htsim in a scratch directory) and never commit it here.
#
#   bench/htsim/build.sh HTSIM_SOURCE [BUILD_DIR]
#
# HTSIM_SOURCE is the repository's root, its htsim/ folder or its htsim/sim/ folder (the one
# holding CMakeLists.txt and eventlist.h). BUILD_DIR defaults to bench/build/htsim; the programs
# are BUILD_DIR/htsim-dumbbell and BUILD_DIR/htsim-fattree. The libraries are built with htsim's
# own CMake settings (-O3 -g, asserts kept, as htsim requires); the programs with the same flags.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
SRC="$1"
BUILD="${2:-$HERE/../build/htsim}"
for cand in "$SRC/htsim/sim" "$SRC/sim" "$SRC"; do
    if [ -f "$cand/eventlist.h" ] && [ -f "$cand/tcp.cpp" ] && [ -f "$cand/CMakeLists.txt" ]; then
        SIM="$(cd "$cand" && pwd)"
        break
    fi
done
if [ -z "${SIM:-}" ]; then
    echo "htsim/build.sh: no htsim source under '$SRC' (expected htsim/sim/eventlist.h, tcp.cpp, CMakeLists.txt)" >&2
    exit 1
fi
for tool in cmake make g++; do
    command -v "$tool" > /dev/null || { echo "htsim/build.sh: '$tool' is needed" >&2; exit 1; }
done
mkdir -p "$BUILD/lib"
BUILD="$(cd "$BUILD" && pwd)"
echo "htsim/build.sh: building htsim's library from $SIM in $BUILD/lib" >&2
cmake -S "$SIM" -B "$BUILD/lib" -DCMAKE_BUILD_TYPE=Release > "$BUILD/cmake.log" 2>&1 \
    || { cat "$BUILD/cmake.log" >&2; exit 1; }
make -C "$BUILD/lib" -j"$(nproc)" htsim htsim_dc > "$BUILD/make.log" 2>&1 \
    || { tail -n 40 "$BUILD/make.log" >&2; exit 1; }
g++ -O3 -g -std=c++17 -Wall -I "$SIM" "$HERE/dumbbell.cc" "$BUILD/lib/libhtsim.a" -o "$BUILD/htsim-dumbbell"
# The fat-tree peer (bench/htsim/fattree.cc) on htsim's data-centre library.
DC_LIB="$(find "$BUILD/lib" -name libhtsim_dc.a | head -1)"
g++ -O3 -g -std=c++17 -Wall -I "$SIM" -I "$SIM/datacenter" "$HERE/fattree.cc" "$DC_LIB" \
    "$BUILD/lib/libhtsim.a" -o "$BUILD/htsim-fattree"
if [ -d "$SIM/../../.git" ]; then
    git -C "$SIM" rev-parse HEAD > "$BUILD/htsim-commit" 2> /dev/null || true
fi
echo "$BUILD/htsim-dumbbell"
echo "$BUILD/htsim-fattree"
