// packetsim benchmark peer: the k-ary fat-tree permutation of scenarios/workloads/
// fat-tree-permutation.toml, built on htsim's own data-centre classes (FatTreeTopologyCfg,
// FatTreeTopology, ConnectionMatrix, DCTCPSrc or TcpSrc, TcpSink, ECNQueue). This file is the
// project's own program; htsim is not in this repository (bench/htsim/build.sh builds it from a
// source directory given on its command line).
//
//   htsim-fattree K [SECONDS] [SIZE_BYTES] [SEED] [tcp|dctcp]
//        defaults                 0.1        1000000      1      dctcp
//
// Every host sends SIZE_BYTES (as ceil(SIZE_BYTES / 1460) full-size packets) to one other host (a random permutation without fixed points,
// htsim's ConnectionMatrix::setPermutation seeded by SEED), all starting at time 0, each flow
// on one of its equal-cost paths picked at random (per-flow ECMP by source routing, as htsim's
// main_tcp does). Links 10 Gb/s, 1 us each, 3 tiers. ACKs return over the reverse path of the
// same tree (htsim's main_tcp sends them back with no delay; packetsim cannot, so neither does
// this peer). Prints one JSON line on stdout: delivered data packets, goodput and the flow
// completion times; bench/README.md ("Fat-tree permutation against htsim") lists every setting
// htsim cannot match.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "connection_matrix.h"
#include "dctcp.h"
#include "eventlist.h"
#include "fat_tree_topology.h"
#include "network.h"
#include "tcp.h"

namespace {

constexpr int kPacket = 1500;  // bytes on the wire per data packet (MSS 1460 + 40 B headers)
constexpr int kPayload = 1460; // payload bytes per data packet

// A source that remembers when its last byte was acknowledged (htsim only prints it).
template <class Src>
class TimedSrc : public Src {
public:
    explicit TimedSrc(EventList& ev) : Src(nullptr, nullptr, ev) {}
    void receivePacket(Packet& pkt) override {
        Src::receivePacket(pkt);
        if (done_at == 0 && this->_last_acked >= this->_flow_size)
            done_at = this->eventlist().now();
    }
    simtime_picosec done_at = 0;
};

bool parse_positive(const char* s, double* out) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0)) return false;
    *out = v;
    return true;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = (size_t)(p * (double)(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 6) {
        std::fprintf(stderr, "usage: %s K [SECONDS] [SIZE_BYTES] [SEED] [tcp|dctcp]\n", argv[0]);
        return 2;
    }
    double kd = 0, seconds = 0.1, size = 1e6, seed = 1;
    if (!parse_positive(argv[1], &kd) || kd != (double)(long)kd || ((long)kd) % 2 != 0) {
        std::fprintf(stderr, "K must be an even positive integer, got '%s'\n", argv[1]);
        return 2;
    }
    if (argc > 2 && !parse_positive(argv[2], &seconds)) {
        std::fprintf(stderr, "SECONDS must be a positive number, got '%s'\n", argv[2]);
        return 2;
    }
    if (argc > 3 && !parse_positive(argv[3], &size)) {
        std::fprintf(stderr, "SIZE_BYTES must be a positive number, got '%s'\n", argv[3]);
        return 2;
    }
    if (argc > 4 && !parse_positive(argv[4], &seed)) {
        std::fprintf(stderr, "SEED must be a positive integer, got '%s'\n", argv[4]);
        return 2;
    }
    const std::string cc = argc > 5 ? argv[5] : "dctcp";
    if (cc != "tcp" && cc != "dctcp") {
        std::fprintf(stderr, "the last argument must be tcp or dctcp, got '%s'\n", cc.c_str());
        return 2;
    }
    const long k = (long)kd;
    const uint64_t packets_per_flow = ((uint64_t)size + kPayload - 1) / kPayload;
    const uint32_t hosts = (uint32_t)(k * k * k / 4);

    // htsim prints its set-up and every timeout to cout; the peer prints one JSON line only.
    std::cout.rdbuf(nullptr);
    std::srand((unsigned)seed);

    Packet::set_packet_size(kPacket);
    EventList& ev = EventList::getTheEventList();
    ev.setEndtime(timeFromSec(seconds));
    TcpRtxTimerScanner scanner(timeFromMs(10), ev);  // htsim's usual period

    // Queues: 250 packets behind the one on the wire, as packetsim's RED step queue with
    // limit 250. htsim's ECN queue marks above a fixed 15 packets (fat_tree_topology.cpp
    // alloc_queue, case ECN); run packetsim with the same step for a matched comparison.
    const queue_type q = cc == "dctcp" ? ECN : RANDOM;
    auto cfg = std::make_unique<FatTreeTopologyCfg>(3u, hosts, speedFromGbps(10.0),
                                                    memFromPkt(251), timeFromUs(1.0),
                                                    timeFromUs(0.0), q, FAIR_PRIO);
    FatTreeTopology top(cfg.get(), nullptr, &ev, nullptr);

    ConnectionMatrix conns(hosts);
    conns.setPermutation(hosts);

    std::vector<TcpSrc*> srcs;
    std::vector<simtime_picosec*> done;
    std::vector<TcpSink*> sinks;
    for (auto& entry : conns.connections) {
        const uint32_t src = entry.first;
        for (uint32_t dst : *entry.second) {
            std::vector<const Route*>* fwd_paths = top.get_bidir_paths(src, dst, false);
            std::vector<const Route*>* rev_paths = top.get_bidir_paths(dst, src, false);
            const size_t choice = (size_t)std::rand() % fwd_paths->size();
            const size_t back = (size_t)std::rand() % rev_paths->size();
            TcpSrc* s;
            if (cc == "dctcp") {
                auto* t = new TimedSrc<DCTCPSrc>(ev);
                done.push_back(&t->done_at);
                s = t;
            } else {
                auto* t = new TimedSrc<TcpSrc>(ev);
                done.push_back(&t->done_at);
                s = t;
            }
            TcpSink* sink = new TcpSink();
            // htsim's MSS is the whole 1500-byte packet; packetsim's is 1460 bytes of payload.
            // The same work is the same number of data packets: ceil(size / 1460) of them.
            s->set_flowsize(packets_per_flow * kPacket);
            s->set_cwnd(10 * kPacket);  // initial window 10, as the scenario
            scanner.registerTcp(*s);
            Route* out = new Route(*fwd_paths->at(choice));
            out->push_back(sink);
            Route* in = new Route(*rev_paths->at(back));
            in->push_back(s);
            s->connect(*out, *in, *sink, 0);
            srcs.push_back(s);
            sinks.push_back(sink);
        }
    }

    uint64_t events = 0;
    while (EventList::doNextEvent()) events++;

    uint64_t delivered = 0, inorder = 0, completed = 0;
    std::vector<double> fct;
    for (size_t i = 0; i < sinks.size(); i++) {
        delivered += sinks[i]->_packets / kPacket;
        if (sinks[i]->_cumulative_ack > 0)
            inorder += std::min<uint64_t>((sinks[i]->_cumulative_ack - 1) / kPacket, packets_per_flow);
        if (*done[i] > 0) {
            completed++;
            fct.push_back(timeAsSec(*done[i]));
        }
    }
    double mean = 0;
    for (double f : fct) mean += f;
    if (!fct.empty()) mean /= (double)fct.size();
    std::printf("{\"sim\":\"htsim\",\"workload\":\"fat-tree-permutation\",\"k\":%ld,\"hosts\":%u,"
                "\"flows\":%zu,\"completed\":%" PRIu64 ",\"sim_s\":%g,"
                "\"data_packets_delivered\":%" PRIu64 ",\"inorder_segments\":%" PRIu64 ","
                "\"goodput_bps\":%.0f,\"fct_mean_s\":%.6g,\"fct_p50_s\":%.6g,\"fct_p99_s\":%.6g,"
                "\"fct_max_s\":%.6g,\"events\":%" PRIu64 "}\n",
                k, hosts, sinks.size(), completed, seconds, delivered, inorder,
                (double)inorder * kPayload * 8.0 / seconds, mean, percentile(fct, 0.5),
                percentile(fct, 0.99), percentile(fct, 1.0), events);
    return 0;
}
