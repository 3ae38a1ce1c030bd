#!/bin/sh
# Builds the YATS harness into $OUT (default /tmp/yats-harness) from a luayats git directory
# ($LUAYATS, default /work/.mirror/hleuwer+luayats/repo). Nothing is written into the repo.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
LUAYATS=${LUAYATS:-/work/.mirror/hleuwer+luayats/repo}
OUT=${OUT:-/tmp/yats-harness}
mkdir -p "$OUT/b"
git --git-dir="$LUAYATS" archive HEAD src/kernel src/tcpip src/muxdmx src/misc | tar -x -C "$OUT"
cd "$OUT/b"
# Opt-in experiment: the environment variable NOPUSH at run time disables calc_send's
# condition (2) (the short tail of the buffered data), to compare with packetsim's
# push_buffered = false.
sed -i 's/((nagleOff || (una == nxt)) \&\& max_to_send_offset == max_buf_offset))/(!getenv("NOPUSH") \&\& (nagleOff || (una == nxt)) \&\& max_to_send_offset == max_buf_offset))/' \
  ../src/tcpip/tcpipsend.c
grep -q NOPUSH ../src/tcpip/tcpipsend.c || { echo "build.sh: calc_send condition not found" >&2; exit 1; }
awk '/^class\tmuxEPD/{p=1} p{print} p&&/^};/{exit}' ../src/muxdmx/epdmux.c | grep -v addpars > epd_class.inc
awk '/^void\tmuxEPD::late\(event \*\)/{p=1} p' ../src/muxdmx/epdmux.c > epd_late.inc
I="-I../src/kernel -I../src/tcpip -I../src/muxdmx -I../src/misc -I."
F="-x c++ -O2 -w -fpermissive -Dexport=export_ -DUSELUA $I"
for f in kernel/data.c kernel/deriv.c kernel/ino.c kernel/in1out.c kernel/inxout.c kernel/root.c \
  kernel/sim.c kernel/geo1.c tcpip/tcpipsend.c tcpip/tcpiprec.c tcpip/cbrframe.c \
  tcpip/aal5send.c tcpip/aal5rec.c muxdmx/mux.c misc/sink.c; do
  g++ $F -c "../src/$f" -o "$(basename "$f" .c).o"
done
g++ $F -c "$HERE/stubs.cpp" -o stubs.o
g++ $F -c "$HERE/harness.cpp" -o harness.o
g++ -o yats *.o
echo "$OUT/b/yats"
