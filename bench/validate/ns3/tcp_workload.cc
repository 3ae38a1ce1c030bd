// Validation peer for issue 17's workloads: ns-3.37 on the dumbbell of
// scenarios/workloads/websearch-dumbbell.toml (s -1 Gb/s, 10 us- r1 -RATE, DELAY- r2 -1 Gb/s,
// 10 us- d), with either
// - --app=poisson: TCP flows arriving at Poisson times, each a BulkSend of its size on a
//   fresh connection to a PacketSink of its own; sizes drawn from an empirical CDF file (the
//   format of scenarios/workloads/*.cdf) by the same inversion as packetsim (app/sizes.rs:
//   linear between points, rounded up to whole bytes, at least 1), or the arrivals and sizes
//   read from --schedule (lines `start_s bytes`, e.g. packetsim's own draws from fct.csv);
//   writes one row per flow to --fct-csv (flow,start_s,bytes,fct_s; fct_s = the time the
//   sink has received the flow's last byte − the BulkSend's start, when it sends the SYN;
//   empty if unfinished); with --trace-csv, also the bottleneck queue every --sample-ms and
//   the first flow's cwnd and ssthresh changes (time_s,what,value);
// - --app=onoff: one ns-3 OnOffApplication over TCP (PacketSize 1460, DataRate --onoff-rate,
//   exponential OnTime/OffTime with means --on-ms/--off-ms), the sink's bytes received
//   sampled every --sample-ms to --sample-csv (time_s,delivered_bytes).
//
//   g++ -O2 -std=c++17 tcp_workload.cc $(pkg-config --cflags --libs ns3-core ns3-network \
//       ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control) -o tcp-workload
//
// --variant newreno, cubic (no HyStart) or dctcp (ECN on); --aqm droptail (the device's
// DropTail queue of --queue packets), step (RedQueueDisc marking above --k packets, as
// tcp_dumbbell.cc) or fq_codel (FqCoDelQueueDisc, quantum 1500, ECN off, limit --queue) on the
// bottleneck's r1 side, over a one-packet device queue. TCP: MSS 1460, --iw initial window,
// SACK (--sack) with RFC 6675 recovery (TcpClassicRecovery), an ACK per segment, no
// timestamps, no limited transmit, min RTO --min-rto-ms, 1 ms granularity, initial RTO and
// SYN timeout 1 s, a 4 MiB receive buffer (window scaling on) and a --sndbuf send buffer
// (default 4 MiB). --seed is ns-3's run
// number. Prints one JSON line at the end: bottleneck drops, marks, mean queue; a queue disc's
// statistics (drops and marks by reason) go to standard error.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1460;
constexpr uint16_t kBasePort = 10000;

struct Flow
{
    double start;
    uint64_t bytes;
    uint64_t rx = 0;
    double done = -1.0;
};

std::vector<Flow> g_flows;
Ptr<QueueDisc> g_disc; // the bottleneck's queue disc, if any (its statistics go to stderr)
std::vector<Ptr<PacketSink>> g_sinks;
uint64_t g_drops = 0;
uint64_t g_marks = 0;
uint64_t g_forwarded = 0;
uint64_t g_enqueued = 0;
double g_qArea = 0.0;
uint32_t g_qLen = 0;
double g_qSince = 0.0;

void
OnQueueLen(uint32_t, uint32_t now)
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
OnEnqueue(Ptr<const Packet>)
{
    ++g_enqueued;
}

void
OnForward(const Ipv4Header& h, Ptr<const Packet>, uint32_t)
{
    // Packets r1 forwards toward d (10.2.0.0/16).
    if ((h.GetDestination().Get() >> 16) == ((10u << 8) | 2u))
    {
        ++g_forwarded;
    }
}

void
OnRx(uint32_t k, Ptr<const Packet> p, const Address&)
{
    Flow& f = g_flows[k];
    f.rx += p->GetSize();
    if (f.done < 0 && f.rx >= f.bytes)
    {
        f.done = Simulator::Now().GetSeconds();
    }
}

// The empirical CDF: points (bytes, F), F non-decreasing to 1.
std::vector<std::pair<double, double>>
ReadCdf(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_IF(!in, "cannot read " << path);
    std::vector<std::pair<double, double>> pts;
    std::string line;
    while (std::getline(in, line))
    {
        const auto hash = line.find('#');
        if (hash != std::string::npos)
        {
            line.resize(hash);
        }
        std::istringstream ss(line);
        double x;
        double p;
        if (ss >> x >> p)
        {
            pts.emplace_back(x, p);
        }
    }
    NS_ABORT_MSG_IF(pts.empty() || pts.back().second != 1.0, path << ": not a CDF ending at 1");
    return pts;
}

// Inverse CDF, linear between points; u at or below the first probability gives the first
// size (packetsim's Cdf::quantile).
double
Quantile(const std::vector<std::pair<double, double>>& pts, double u)
{
    size_t i = 0;
    while (i < pts.size() && pts[i].second < u)
    {
        ++i;
    }
    if (i == pts.size())
    {
        return pts.back().first;
    }
    if (i == 0 || pts[i].second <= pts[i - 1].second)
    {
        return pts[i].first;
    }
    const auto [x0, p0] = pts[i - 1];
    const auto [x1, p1] = pts[i];
    return x0 + (x1 - x0) * (u - p0) / (p1 - p0);
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

FILE* g_trace = nullptr; // --trace-csv: queue samples and the first flow's cwnd changes

void
OnTraceCwnd(uint32_t, uint32_t now)
{
    std::fprintf(g_trace, "%.6f,cwnd,%u\n", Simulator::Now().GetSeconds(), now);
}

void
OnTraceSsthresh(uint32_t, uint32_t now)
{
    std::fprintf(g_trace, "%.6f,ssthresh,%u\n", Simulator::Now().GetSeconds(), now);
}

void
HookTrace(Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "no socket yet");
    s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnTraceCwnd));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&OnTraceSsthresh));
}

void
SampleQueue(double step, double duration)
{
    std::fprintf(g_trace, "%.6f,queue,%u\n", Simulator::Now().GetSeconds(), g_qLen);
    if (Simulator::Now().GetSeconds() + step < duration + 1e-9)
    {
        Simulator::Schedule(Seconds(step), &SampleQueue, step, duration);
    }
}

void
Sample(FILE* out, Ptr<PacketSink> sink, double step, double duration)
{
    std::fprintf(out,
                 "%.3f,%llu\n",
                 Simulator::Now().GetSeconds(),
                 static_cast<unsigned long long>(sink->GetTotalRx()));
    if (Simulator::Now().GetSeconds() + step < duration + 1e-9)
    {
        Simulator::Schedule(Seconds(step), &Sample, out, sink, step, duration);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string app = "poisson";
    std::string variant = "newreno";
    std::string aqm = "droptail";
    double rateMbps = 100;
    double delayMs = 1;
    uint32_t queue = 100;
    uint32_t k = 20;
    uint32_t seed = 1;
    double duration = 35;
    double arrivalsUntil = 25;
    double arrivalRate = 3.6;
    std::string cdf;
    std::string schedule;
    std::string fctCsv;
    uint32_t iw = 10;
    double minRtoMs = 10;
    bool sack = true;
    double onMs = 100;
    double offMs = 400;
    double onoffRateMbps = 1000;
    double sampleMs = 10;
    std::string sampleCsv;
    uint32_t sndBuf = 4 * 1024 * 1024;
    std::string traceCsv;
    CommandLine cmd(__FILE__);
    cmd.AddValue("app", "poisson or onoff", app);
    cmd.AddValue("variant", "newreno, cubic or dctcp", variant);
    cmd.AddValue("aqm", "droptail, step or fq_codel", aqm);
    cmd.AddValue("rate", "bottleneck rate, Mb/s", rateMbps);
    cmd.AddValue("delay", "bottleneck one-way delay, ms", delayMs);
    cmd.AddValue("queue", "bottleneck queue limit, packets", queue);
    cmd.AddValue("k", "step marking threshold, packets", k);
    cmd.AddValue("seed", "ns-3 run number", seed);
    cmd.AddValue("duration", "run length, s", duration);
    cmd.AddValue("arrivals-until", "poisson: last arrival before this, s", arrivalsUntil);
    cmd.AddValue("arrival-rate", "poisson: flows per second", arrivalRate);
    cmd.AddValue("cdf", "poisson: flow-size CDF file", cdf);
    cmd.AddValue("schedule", "poisson: arrivals and sizes from this file instead", schedule);
    cmd.AddValue("fct-csv", "poisson: where to write the flows", fctCsv);
    cmd.AddValue("iw", "initial window, segments", iw);
    cmd.AddValue("min-rto-ms", "minimum RTO, ms", minRtoMs);
    cmd.AddValue("sack", "SACK on", sack);
    cmd.AddValue("on-ms", "onoff: mean on time, ms", onMs);
    cmd.AddValue("off-ms", "onoff: mean off time, ms", offMs);
    cmd.AddValue("onoff-rate", "onoff: DataRate during on, Mb/s", onoffRateMbps);
    cmd.AddValue("sample-ms", "onoff: sampling interval, ms", sampleMs);
    cmd.AddValue("sample-csv", "onoff: where to write the samples", sampleCsv);
    cmd.AddValue("sndbuf", "TCP send buffer, bytes", sndBuf);
    cmd.AddValue("trace-csv",
                 "poisson: write the bottleneck queue every --sample-ms and the first flow's "
                 "cwnd and ssthresh changes here (time_s,what,value)",
                 traceCsv);
    cmd.Parse(argc, argv);
    if ((app != "poisson" && app != "onoff") ||
        (variant != "newreno" && variant != "cubic" && variant != "dctcp") ||
        (aqm != "droptail" && aqm != "step" && aqm != "fq_codel") ||
        (app == "poisson" && (fctCsv.empty() || (cdf.empty() && schedule.empty()))) ||
        (app == "onoff" && sampleCsv.empty()))
    {
        std::fprintf(stderr,
                     "tcp-workload: --app poisson|onoff, --variant newreno|cubic|dctcp, --aqm "
                     "droptail|step|fq_codel; poisson needs --fct-csv and --cdf or --schedule, "
                     "onoff --sample-csv\n");
        return 2;
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const uint32_t big = 4 * 1024 * 1024;
    TypeId cc = TcpNewReno::GetTypeId();
    if (variant == "cubic")
    {
        cc = TcpCubic::GetTypeId();
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    }
    else if (variant == "dctcp")
    {
        cc = TcpDctcp::GetTypeId();
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(big * 16));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(minRtoMs)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000));

    NodeContainer n;
    n.Create(4); // s, r1, r2, d
    InternetStackHelper stack;
    stack.InstallAll();
    char rate[32];
    char delay[32];
    std::snprintf(rate, sizeof rate, "%gMbps", rateMbps);
    std::snprintf(delay, sizeof delay, "%gms", delayMs);
    const bool disc = aqm != "droptail";
    NetDeviceContainer access = Link(n.Get(0), n.Get(1), "1Gbps", "10us", 1000);
    NetDeviceContainer bottleneck = Link(n.Get(1), n.Get(2), rate, delay, disc ? 1 : queue);
    NetDeviceContainer egress = Link(n.Get(2), n.Get(3), "1Gbps", "10us", 1000);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.0.0", "255.255.255.252");
    addr.Assign(access);
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneck);
    addr.SetBase("10.2.0.0", "255.255.255.252");
    const Ipv4Address dst = addr.Assign(egress).GetAddress(1);
    TrafficControlHelper none;
    none.Uninstall(access);
    none.Uninstall(bottleneck);
    none.Uninstall(egress);
    Ptr<PointToPointNetDevice> r1 = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0));
    if (disc)
    {
        const QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, queue));
        TrafficControlHelper tch;
        if (aqm == "step")
        {
            tch.SetRootQueueDisc("ns3::RedQueueDisc",
                                 "MaxSize",
                                 limit,
                                 "MinTh",
                                 DoubleValue(k),
                                 "MaxTh",
                                 DoubleValue(k + 1),
                                 "QW",
                                 DoubleValue(1.0),
                                 "UseEcn",
                                 BooleanValue(true),
                                 "UseHardDrop",
                                 BooleanValue(false),
                                 "LInterm",
                                 DoubleValue(1.0));
        }
        else
        {
            tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                                 "MaxSize",
                                 limit,
                                 "UseEcn",
                                 BooleanValue(false));
        }
        Ptr<QueueDisc> d = tch.Install(NetDeviceContainer(r1)).Get(0);
        g_disc = d;
        d->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        d->TraceConnectWithoutContext("Drop", MakeCallback(&OnDiscDrop));
        d->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    }
    else
    {
        Ptr<Queue<Packet>> q = r1->GetQueue();
        q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
        n.Get(1)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&OnForward));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    FILE* sampleOut = nullptr;
    if (app == "poisson")
    {
        if (!schedule.empty())
        {
            std::ifstream in(schedule);
            NS_ABORT_MSG_IF(!in, "cannot read " << schedule);
            double s;
            uint64_t b;
            while (in >> s >> b)
            {
                g_flows.push_back(Flow{s, b});
            }
        }
        else
        {
            const auto pts = ReadCdf(cdf);
            Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
            gap->SetAttribute("Mean", DoubleValue(1.0 / arrivalRate));
            Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
            for (double t = gap->GetValue(); t < arrivalsUntil; t += gap->GetValue())
            {
                const double x = Quantile(pts, u->GetValue());
                g_flows.push_back(Flow{t, std::max<uint64_t>(1, std::ceil(x))});
            }
        }
        NS_ABORT_MSG_IF(g_flows.size() > 50000, "too many flows for one port each");
        for (uint32_t i = 0; i < g_flows.size(); ++i)
        {
            const uint16_t port = kBasePort + i;
            PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                        InetSocketAddress(Ipv4Address::GetAny(), port));
            ApplicationContainer sinkApp = sinkHelper.Install(n.Get(3));
            sinkApp.Start(Seconds(0.0));
            Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));
            sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, i));
            BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(dst, port));
            src.SetAttribute("MaxBytes", UintegerValue(g_flows[i].bytes));
            src.SetAttribute("SendSize", UintegerValue(10 * kMss));
            ApplicationContainer srcApp = src.Install(n.Get(0));
            srcApp.Start(Seconds(g_flows[i].start));
            if (i == 0 && !traceCsv.empty())
            {
                g_trace = std::fopen(traceCsv.c_str(), "w");
                NS_ABORT_MSG_IF(!g_trace, "cannot write " << traceCsv);
                std::fprintf(g_trace, "time_s,what,value\n");
                Simulator::Schedule(Seconds(g_flows[i].start) + NanoSeconds(1),
                                    &HookTrace,
                                    DynamicCast<BulkSendApplication>(srcApp.Get(0)));
                Simulator::Schedule(Seconds(0), &SampleQueue, sampleMs / 1e3, duration);
            }
        }
    }
    else
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kBasePort));
        ApplicationContainer sinkApp = sinkHelper.Install(n.Get(3));
        sinkApp.Start(Seconds(0.0));
        OnOffHelper src("ns3::TcpSocketFactory", InetSocketAddress(dst, kBasePort));
        std::ostringstream on;
        std::ostringstream off;
        on << "ns3::ExponentialRandomVariable[Mean=" << onMs / 1e3 << "]";
        off << "ns3::ExponentialRandomVariable[Mean=" << offMs / 1e3 << "]";
        src.SetAttribute("OnTime", StringValue(on.str()));
        src.SetAttribute("OffTime", StringValue(off.str()));
        src.SetAttribute("PacketSize", UintegerValue(kMss));
        src.SetAttribute("DataRate", DataRateValue(DataRate(onoffRateMbps * 1e6)));
        ApplicationContainer srcApp = src.Install(n.Get(0));
        srcApp.Start(Seconds(0.0));
        sampleOut = std::fopen(sampleCsv.c_str(), "w");
        NS_ABORT_MSG_IF(!sampleOut, "cannot write " << sampleCsv);
        std::fprintf(sampleOut, "time_s,delivered_bytes\n");
        Simulator::Schedule(Seconds(0),
                            &Sample,
                            sampleOut,
                            DynamicCast<PacketSink>(sinkApp.Get(0)),
                            sampleMs / 1e3,
                            duration);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    OnQueueLen(0, g_qLen);
    if (!disc)
    {
        g_drops = g_forwarded - g_enqueued;
    }
    if (sampleOut)
    {
        std::fclose(sampleOut);
    }
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    if (app == "poisson")
    {
        FILE* out = std::fopen(fctCsv.c_str(), "w");
        NS_ABORT_MSG_IF(!out, "cannot write " << fctCsv);
        std::fprintf(out, "flow,start_s,bytes,fct_s\n");
        for (uint32_t i = 0; i < g_flows.size(); ++i)
        {
            const Flow& f = g_flows[i];
            if (f.done >= 0)
            {
                std::fprintf(out,
                             "%u,%.9f,%llu,%.9f\n",
                             i,
                             f.start,
                             static_cast<unsigned long long>(f.bytes),
                             f.done - f.start);
            }
            else
            {
                std::fprintf(out,
                             "%u,%.9f,%llu,\n",
                             i,
                             f.start,
                             static_cast<unsigned long long>(f.bytes));
            }
        }
        std::fclose(out);
    }
    std::printf("{\"sim\":\"ns-3.37\",\"flows\":%zu,\"drops\":%llu,\"marks\":%llu,"
                "\"mean_queue_pkts\":%.4f}\n",
                g_flows.size(),
                static_cast<unsigned long long>(g_drops),
                static_cast<unsigned long long>(g_marks),
                g_qArea / duration);
    if (g_disc)
    {
        std::ostringstream stats;
        g_disc->GetStats().Print(stats);
        std::fprintf(stderr, "%s\n", stats.str().c_str());
    }
    Simulator::Destroy();
    return 0;
}
