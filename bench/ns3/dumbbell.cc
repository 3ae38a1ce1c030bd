// packetsim benchmark peer: dumbbell with N long-lived TCP NewReno flows, for ns-3.37.
//
//   g++ -O2 -std=c++17 dumbbell.cc $(pkg-config --cflags --libs ns3-core ns3-network \
//       ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control) -o ns3-dumbbell
//   ./ns3-dumbbell N
//
// Prints one JSON line on stdout. No tracing to files: data segments are counted by a
// callback on the receivers' Ipv4L3Protocol LocalDeliver trace source, and goodput is read
// from the PacketSinks' byte counters. See bench/README.md for the parameter mapping.

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

constexpr double kSimEnd = 60.0;        // seconds of simulated time
constexpr uint32_t kMss = 1460;         // TCP payload bytes per segment
constexpr uint32_t kRwndPackets = 10000; // receive window, segments: never limits
constexpr uint16_t kPort = 5000;

uint64_t g_dataSegments = 0; // data segments (payload > 0) delivered to receiving TCPs

// Called for every IP packet handed to the local transport layer on a receiver host.
// The packet no longer carries its IPv4 header here.
void
OnLocalDeliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t /*iface*/)
{
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    TcpHeader tcp;
    p->PeekHeader(tcp);
    if (p->GetSize() > tcp.GetSerializedSize())
    {
        ++g_dataSegments;
    }
}

void
SetTcpDefaults()
{
    const uint32_t bigBuffer = kRwndPackets * kMss;
    // Congestion control and loss recovery: NewReno with RFC 6582-style recovery.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    // Segments and windows.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bigBuffer));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    // No delayed ACK: ACK every segment.
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // No SACK, no timestamps, no limited transmit, no ECN, no pacing, Nagle off.
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::Off));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    // Retransmission timer: min 200 ms, initial 1 s (SYN and data), granularity 1 ms.
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000));
}

// One full-duplex point-to-point link with a DropTail device queue of `queuePackets` on each
// side; the default root queue disc that Ipv4AddressHelper::Assign installs is removed later.
NetDeviceContainer
Link(Ptr<Node> a, Ptr<Node> b, const std::string& rate, const std::string& delay,
     uint32_t queuePackets)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePackets)));
    return p2p.Install(a, b);
}

} // namespace

int
main(int argc, char* argv[])
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    const int n = std::atoi(argv[1]);
    if (n < 1 || n > 16000)
    {
        std::fprintf(stderr, "N must be in 1..16000, got '%s'\n", argv[1]);
        return 2;
    }
    const uint32_t flows = static_cast<uint32_t>(n);

    SetTcpDefaults();

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(flows);
    NodeContainer receivers;
    receivers.Create(flows);

    InternetStackHelper stack;
    stack.InstallAll();

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> allDevices;
    std::vector<Ipv4Address> receiverAddr(flows);

    // Bottleneck r0 <-> r1: 100 Mb/s, 10 ms, 100 packets each direction.
    NetDeviceContainer bottleneck = Link(routers.Get(0), routers.Get(1), "100Mbps", "10ms", 100);
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneck);
    allDevices.push_back(bottleneck);

    for (uint32_t i = 0; i < flows; ++i)
    {
        // s_i <-> r0 and r1 <-> d_i: 1 Gb/s, 1 ms, 1000 packets each direction.
        NetDeviceContainer up = Link(senders.Get(i), routers.Get(0), "1Gbps", "1ms", 1000);
        NetDeviceContainer down = Link(routers.Get(1), receivers.Get(i), "1Gbps", "1ms", 1000);
        // One /30 per access link: 10.1.0.0/16 and 10.2.0.0/16 hold 16,384 each.
        addr.SetBase(Ipv4Address((10u << 24) | (1u << 16) | (i << 2)), "255.255.255.252");
        addr.Assign(up);
        addr.SetBase(Ipv4Address((10u << 24) | (2u << 16) | (i << 2)), "255.255.255.252");
        Ipv4InterfaceContainer downIf = addr.Assign(down);
        receiverAddr[i] = downIf.GetAddress(1);
        allDevices.push_back(up);
        allDevices.push_back(down);
    }

    // Exactly one queue per interface: the device's DropTail queue. Remove the root queue disc
    // (fq_codel by default) that address assignment installed in front of it.
    TrafficControlHelper tch;
    for (auto& devs : allDevices)
    {
        tch.Uninstall(devs);
    }
    // Check it: no queue disc anywhere, and the bottleneck device queues hold 100 packets.
    for (auto& devs : allDevices)
    {
        for (uint32_t k = 0; k < devs.GetN(); ++k)
        {
            Ptr<NetDevice> dev = devs.Get(k);
            Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
            NS_ABORT_MSG_IF(tc->GetRootQueueDiscOnDevice(dev), "a queue disc is still installed");
        }
    }
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(bottleneck.Get(k));
        NS_ABORT_MSG_IF(dev->GetQueue()->GetMaxSize() != QueueSize("100p"),
                        "bottleneck device queue is not 100 packets");
        NS_ABORT_MSG_IF(!DynamicCast<DropTailQueue<Packet>>(dev->GetQueue()),
                        "bottleneck device queue is not DropTail");
    }

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], kPort));
        src.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        src.SetAttribute("SendSize", UintegerValue(10 * kMss));
        ApplicationContainer srcApp = src.Install(senders.Get(i));
        srcApp.Start(Seconds(static_cast<double>(i) / flows));

        Ptr<Ipv4L3Protocol> ipv4 = receivers.Get(i)->GetObject<Ipv4L3Protocol>();
        ipv4->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&OnLocalDeliver));
    }

    Simulator::Stop(Seconds(kSimEnd));
    Simulator::Run();

    uint64_t appBytes = 0;
    for (const auto& s : sinks)
    {
        appBytes += s->GetTotalRx();
    }
    const double goodput = static_cast<double>(appBytes) * 8.0 / kSimEnd;
    std::printf("{\"sim\":\"ns-3.37\",\"workload\":\"dumbbell-%u\",\"flows\":%u,"
                "\"data_packets_delivered\":%llu,\"goodput_bps\":%.0f,\"events\":%llu}\n",
                flows,
                flows,
                static_cast<unsigned long long>(g_dataSegments),
                goodput,
                static_cast<unsigned long long>(Simulator::GetEventCount()));
    std::fflush(stdout);

    Simulator::Destroy();
    return 0;
}
