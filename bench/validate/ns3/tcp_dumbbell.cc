// Validation peer for issue 17: a dumbbell of N long-lived TCP flows in ns-3.37, with the
// congestion control named on the command line, for comparison with the same scenario in
// packetsim (bench/validate/ns3/run.py writes both and compares them).
//
//   g++ -O2 -std=c++17 tcp_dumbbell.cc $(pkg-config --cflags --libs ns3-core ns3-network \
//       ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control) -o tcp-dumbbell
//   ./tcp-dumbbell VARIANT N RATE_MBPS DELAY_MS QUEUE_PKTS DURATION_S STAGGER_S CWND_CSV [K]
//
// VARIANT is cubic, newreno or dctcp. Topology: s_i -1 Gb/s, 1 ms- r0 -RATE, DELAY- r1
// -1 Gb/s, 1 ms- d_i. Flow i starts at i * STAGGER_S. The bottleneck r0->r1 has one queue of
// QUEUE_PKTS waiting packets: a DropTail device queue (cubic, newreno), or for dctcp a RED
// queue disc marking every ECN-capable packet that arrives to a queue above K packets
// (instantaneous queue, QW = 1, MinTh = K, MaxTh = K + 1, hard drop off) over a one-packet
// device queue. Writes every flow's cwnd every 100 ms to CWND_CSV (time_s,flow,cwnd_bytes) and
// prints one JSON line: per-flow goodput, bottleneck drops and marks, time-average queue.
//
// Settings matched to packetsim's scenario (run.py): MSS 1460, initial cwnd 2, no delayed
// ACK, no SACK, no timestamps, no limited transmit, classic (NewReno-style) recovery, min RTO
// 200 ms, 1 ms clock granularity, CUBIC without HyStart (packetsim has none). Not matched
// (ns-3.37's TcpCubic follows Linux 3.14): no Reno-friendly region, the cubic target uses
// the minimum RTT (delayMin), a 10 ms "cubic delta" after recovery, and per-ACK cnt
// arithmetic in whole segments; see results.md.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1460;
constexpr uint16_t kPort = 5000;
constexpr double kSampleS = 0.1;

struct Args
{
    std::string variant;
    uint32_t flows;
    double rateMbps;
    double delayMs;
    uint32_t queuePkts;
    double duration;
    double stagger;
    std::string cwndCsv;
    uint32_t k;
};

std::vector<uint32_t> g_cwnd; // latest cwnd of each flow, bytes (0 before it starts)
uint64_t g_drops = 0;
uint64_t g_marks = 0;
// Time-weighted queue length at the bottleneck (packets waiting).
double g_qArea = 0.0;
uint32_t g_qLen = 0;
double g_qSince = 0.0;

void
OnCwnd(uint32_t flow, uint32_t /*old*/, uint32_t now)
{
    g_cwnd[flow] = now;
}

void
OnQueueLen(uint32_t /*old*/, uint32_t now)
{
    const double t = Simulator::Now().GetSeconds();
    g_qArea += g_qLen * (t - g_qSince);
    g_qLen = now;
    g_qSince = t;
}

void
OnDrop(Ptr<const Packet>)
{
    ++g_drops;
}

uint64_t g_forwarded = 0; // packets r0 forwarded toward the receivers (10.2.0.0/16)
uint64_t g_enqueued = 0;  // packets the bottleneck device queue admitted

void
OnForward(const Ipv4Header& h, Ptr<const Packet>, uint32_t)
{
    if ((h.GetDestination().Get() >> 16) == ((10u << 8) | 2u))
    {
        ++g_forwarded;
    }
}

void
OnEnqueue(Ptr<const Packet>)
{
    ++g_enqueued;
}

void
OnDiscDrop(Ptr<const QueueDiscItem>)
{
    ++g_drops;
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    ++g_marks;
}

void
Sample(FILE* out, double duration)
{
    const double t = Simulator::Now().GetSeconds();
    for (uint32_t i = 0; i < g_cwnd.size(); ++i)
    {
        if (g_cwnd[i] > 0)
        {
            std::fprintf(out, "%.1f,f%u,%u\n", t, i, g_cwnd[i]);
        }
    }
    if (t + kSampleS < duration - 1e-9)
    {
        Simulator::Schedule(Seconds(kSampleS), &Sample, out, duration);
    }
}

// Connects flow i's cwnd trace once its socket exists (BulkSend creates it at start).
void
HookCwnd(Ptr<BulkSendApplication> app, uint32_t flow)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "no socket yet");
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, flow));
}

void
SetTcpDefaults(const Args& a)
{
    const uint32_t big = 10000 * kMss;
    TypeId cc = TcpNewReno::GetTypeId();
    if (a.variant == "cubic")
    {
        cc = TcpCubic::GetTypeId();
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    }
    else if (a.variant == "dctcp")
    {
        cc = TcpDctcp::GetTypeId();
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    if (a.variant == "dctcp")
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    }
}

NetDeviceContainer
Link(Ptr<Node> a, Ptr<Node> b, const std::string& rate, const std::string& delay, uint32_t q)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, q)));
    return p2p.Install(a, b);
}

Args
Parse(int argc, char* argv[])
{
    if (argc < 9)
    {
        std::fprintf(stderr,
                     "usage: %s VARIANT N RATE_MBPS DELAY_MS QUEUE_PKTS DURATION_S STAGGER_S "
                     "CWND_CSV [K]\n",
                     argv[0]);
        std::exit(2);
    }
    Args a;
    a.variant = argv[1];
    a.flows = static_cast<uint32_t>(std::atoi(argv[2]));
    a.rateMbps = std::atof(argv[3]);
    a.delayMs = std::atof(argv[4]);
    a.queuePkts = static_cast<uint32_t>(std::atoi(argv[5]));
    a.duration = std::atof(argv[6]);
    a.stagger = std::atof(argv[7]);
    a.cwndCsv = argv[8];
    a.k = argc > 9 ? static_cast<uint32_t>(std::atoi(argv[9])) : 0;
    if (a.variant != "cubic" && a.variant != "newreno" && a.variant != "dctcp")
    {
        std::fprintf(stderr, "VARIANT must be cubic, newreno or dctcp, got '%s'\n", argv[1]);
        std::exit(2);
    }
    if (a.flows < 1 || a.flows > 1000 || a.rateMbps <= 0 || a.delayMs < 0 || a.queuePkts < 1 ||
        a.duration <= 0 || (a.variant == "dctcp" && a.k < 1))
    {
        std::fprintf(stderr, "bad arguments (dctcp needs K >= 1)\n");
        std::exit(2);
    }
    return a;
}

} // namespace

int
main(int argc, char* argv[])
{
    const Args a = Parse(argc, argv);
    SetTcpDefaults(a);
    g_cwnd.assign(a.flows, 0);

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(a.flows);
    NodeContainer receivers;
    receivers.Create(a.flows);
    InternetStackHelper stack;
    stack.InstallAll();

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> access;
    std::vector<Ipv4Address> receiverAddr(a.flows);
    char rate[32];
    char delay[32];
    std::snprintf(rate, sizeof rate, "%gMbps", a.rateMbps);
    std::snprintf(delay, sizeof delay, "%gms", a.delayMs);
    const bool aqm = a.variant == "dctcp";
    NetDeviceContainer bottleneck =
        Link(routers.Get(0), routers.Get(1), rate, delay, aqm ? 1 : a.queuePkts);
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneck);
    for (uint32_t i = 0; i < a.flows; ++i)
    {
        NetDeviceContainer up = Link(senders.Get(i), routers.Get(0), "1Gbps", "1ms", 10000);
        NetDeviceContainer down = Link(routers.Get(1), receivers.Get(i), "1Gbps", "1ms", 10000);
        addr.SetBase(Ipv4Address((10u << 24) | (1u << 16) | (i << 2)), "255.255.255.252");
        addr.Assign(up);
        addr.SetBase(Ipv4Address((10u << 24) | (2u << 16) | (i << 2)), "255.255.255.252");
        receiverAddr[i] = addr.Assign(down).GetAddress(1);
        access.push_back(up);
        access.push_back(down);
    }
    // One queue per interface: remove the fq_codel root queue disc that address assignment
    // installed, everywhere except the bottleneck's r0 side for dctcp (RED there).
    TrafficControlHelper none;
    for (auto& d : access)
    {
        none.Uninstall(d);
    }
    none.Uninstall(bottleneck);
    Ptr<PointToPointNetDevice> r0 = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0));
    if (aqm)
    {
        TrafficControlHelper red;
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, a.queuePkts)),
                             "MinTh",
                             DoubleValue(a.k),
                             "MaxTh",
                             DoubleValue(a.k + 1),
                             "QW",
                             DoubleValue(1.0),
                             "UseEcn",
                             BooleanValue(true),
                             "UseHardDrop",
                             BooleanValue(false),
                             "LInterm",
                             DoubleValue(1.0));
        QueueDiscContainer qd = red.Install(NetDeviceContainer(r0));
        Ptr<QueueDisc> disc = qd.Get(0);
        disc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        disc->TraceConnectWithoutContext("Drop", MakeCallback(&OnDiscDrop));
        disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    }
    else
    {
        Ptr<Queue<Packet>> q = r0->GetQueue();
        q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
        // With no queue disc, a packet that finds the device queue full (its flow control
        // has stopped it) is dropped by the traffic-control layer without a trace: count the
        // packets r0 forwards toward the receivers and those the queue admits.
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
        routers.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&OnForward));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < a.flows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], kPort));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(10 * kMss));
        ApplicationContainer srcApp = src.Install(senders.Get(i));
        const double start = i * a.stagger;
        srcApp.Start(Seconds(start));
        Simulator::Schedule(Seconds(start) + NanoSeconds(1),
                            &HookCwnd,
                            DynamicCast<BulkSendApplication>(srcApp.Get(0)),
                            i);
    }

    FILE* csv = std::fopen(a.cwndCsv.c_str(), "w");
    NS_ABORT_MSG_IF(!csv, "cannot write " << a.cwndCsv);
    std::fprintf(csv, "time_s,flow,cwnd_bytes\n");
    Simulator::Schedule(Seconds(0), &Sample, csv, a.duration);
    Simulator::Stop(Seconds(a.duration));
    Simulator::Run();
    std::fclose(csv);
    OnQueueLen(0, g_qLen); // close the last interval
    if (!aqm)
    {
        // Packets forwarded but neither admitted nor dropped by the queue itself.
        g_drops = g_forwarded - g_enqueued;
    }

    std::printf("{\"sim\":\"ns-3.37\",\"variant\":\"%s\",\"flows\":[", a.variant.c_str());
    for (uint32_t i = 0; i < a.flows; ++i)
    {
        const double active = a.duration - i * a.stagger;
        std::printf("%s{\"flow\":\"f%u\",\"goodput_bps\":%.0f}",
                    i ? "," : "",
                    i,
                    sinks[i]->GetTotalRx() * 8.0 / active);
    }
    std::printf("],\"drops\":%llu,\"marks\":%llu,\"mean_queue_pkts\":%.4f}\n",
                static_cast<unsigned long long>(g_drops),
                static_cast<unsigned long long>(g_marks),
                g_qArea / a.duration);
    Simulator::Destroy();
    return 0;
}
