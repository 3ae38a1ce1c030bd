// packetsim benchmark peer: the dumbbell with N long-lived TCP flows, built on htsim's classes
// (EventList, Queue, Pipe, Route, TcpSrc, TcpSink, TcpRtxTimerScanner). This file is the
// project's own program; htsim itself is not in this repository (bench/htsim/build.sh builds
// it from a source directory given on its command line).
//
//   htsim-dumbbell N [SECONDS]      (SECONDS defaults to 60)
//
// Prints one JSON line on stdout (the same fields as the ns-2 and ns-3 peers). See
// bench/README.md for the workload and for every setting htsim cannot match.

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

namespace {

constexpr int kPacket = 1500;  // bytes on the wire per data packet (MSS 1460 + 40 B headers)
constexpr int kPayload = 1460; // payload bytes per data packet, for goodput
constexpr int kAck = 40;       // htsim's TcpAck::ACKSIZE, as packetsim's pure ACK

// htsim's Queue keeps the packet being transmitted in the queue and limits bytes; packetsim
// (like ns-2) limits the packets waiting behind the one on the wire. A limit of L packets is
// (L + 1) full-size packets of bytes here.
mem_b queue_bytes(int waiting_packets) { return mem_b(waiting_packets + 1) * kPacket; }

// One direction of a link: serialization (Queue) then propagation (Pipe), htsim's usual pair.
struct Hop {
    Queue* queue;
    Pipe* pipe;
};

Hop make_hop(EventList& ev, linkspeed_bps rate, simtime_picosec delay, int limit_pkts) {
    return Hop{new Queue(rate, queue_bytes(limit_pkts), ev, nullptr), new Pipe(delay, ev)};
}

void push_hop(Route* r, const Hop& h) {
    r->push_back(h.queue);
    r->push_back(h.pipe);
}

bool parse_positive(const char* s, double* out) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0)) return false;
    *out = v;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s N [SECONDS]\n", argv[0]);
        return 2;
    }
    double nd = 0, seconds = 60.0;
    if (!parse_positive(argv[1], &nd) || nd != (double)(long)nd) {
        std::fprintf(stderr, "N must be a positive integer, got '%s'\n", argv[1]);
        return 2;
    }
    if (argc == 3 && !parse_positive(argv[2], &seconds)) {
        std::fprintf(stderr, "SECONDS must be a positive number, got '%s'\n", argv[2]);
        return 2;
    }
    const long n = (long)nd;

    // htsim writes a line to cout on every retransmission timeout; the peers print nothing
    // while they run, so cout is switched off (a stream without a buffer formats nothing).
    std::cout.rdbuf(nullptr);

    Packet::set_packet_size(kPacket);  // TcpSrc's MSS is the whole packet in htsim
    EventList& ev = EventList::getTheEventList();
    ev.setEndtime(timeFromSec(seconds));
    // htsim checks every TCP's retransmission timer from one global scan; 10 ms is the period
    // its own TCP experiments use.
    TcpRtxTimerScanner scanner(timeFromMs(10), ev);

    const linkspeed_bps access = speedFromGbps(1.0);
    const linkspeed_bps bottleneck = speedFromMbps((uint64_t)100);
    Hop fwd = make_hop(ev, bottleneck, timeFromMs(10), 100);  // r0 -> r1
    Hop rev = make_hop(ev, bottleneck, timeFromMs(10), 100);  // r1 -> r0

    std::vector<TcpSink*> sinks;
    sinks.reserve(n);
    const simtime_picosec spacing = timeFromSec(1.0) / (simtime_picosec)n;
    for (long i = 0; i < n; i++) {
        Hop s_r0 = make_hop(ev, access, timeFromMs(1), 1000);
        Hop r0_s = make_hop(ev, access, timeFromMs(1), 1000);
        Hop r1_d = make_hop(ev, access, timeFromMs(1), 1000);
        Hop d_r1 = make_hop(ev, access, timeFromMs(1), 1000);

        TcpSrc* src = new TcpSrc(nullptr, nullptr, ev);
        TcpSink* sink = new TcpSink();
        src->set_cwnd(2 * kPacket);      // initial window 2 segments (htsim's default is 10)
        src->set_ssthresh(0xffffffffu);  // no initial ssthresh cap (htsim's default is 100)
        src->_rto = timeFromSec(1.0);    // initial RTO 1 s (htsim's default is 3 s)
        scanner.registerTcp(*src);

        Route* out = new Route();
        push_hop(out, s_r0);
        push_hop(out, fwd);
        push_hop(out, r1_d);
        out->push_back(sink);
        Route* back = new Route();
        push_hop(back, d_r1);
        push_hop(back, rev);
        push_hop(back, r0_s);
        back->push_back(src);

        src->connect(*out, *back, *sink, spacing * (simtime_picosec)i);
        sinks.push_back(sink);
    }

    uint64_t events = 0;
    while (EventList::doNextEvent()) events++;

    // TcpSink::_packets sums the sizes of every packet it received (duplicates included): data
    // packets are kPacket bytes, the SYN is 1 byte. _cumulative_ack is the last in-order byte,
    // the SYN's byte included.
    uint64_t delivered = 0, inorder = 0;
    for (TcpSink* s : sinks) {
        delivered += s->_packets / kPacket;
        if (s->_cumulative_ack > 0) inorder += (s->_cumulative_ack - 1) / kPacket;
    }
    const double goodput = (double)inorder * kPayload * 8.0 / seconds;
    std::printf("{\"sim\":\"htsim\",\"workload\":\"dumbbell-%ld\",\"flows\":%ld,\"sim_s\":%g,"
                "\"data_packets_delivered\":%" PRIu64 ",\"goodput_bps\":%.0f,"
                "\"inorder_segments\":%" PRIu64 ",\"events\":%" PRIu64 "}\n",
                n, n, seconds, delivered, goodput, inorder, events);
    (void)kAck;
    return 0;
}
