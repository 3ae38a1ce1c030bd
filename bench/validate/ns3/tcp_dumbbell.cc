// Validation peer for issue 17: a dumbbell of N long-lived TCP flows in ns-3.37, with the
// congestion control, loss recovery and bottleneck queue named on the command line, for
// comparison with the same scenario in packetsim (bench/validate/ns3/run.py writes both and
// compares them).
//
//   g++ -O2 -std=c++17 tcp_dumbbell.cc $(pkg-config --cflags --libs ns3-core ns3-network \
//       ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control) -o tcp-dumbbell
//   ./tcp-dumbbell --variant=V --flows=N --rate=MBPS --delay=MS --queue=PKTS --duration=S \
//       --stagger=S --cwnd-csv=PATH --queue-csv=PATH [--aqm=A] [--k=K] [--sack=0|1] \
//       [--recovery=classic|prr] [--drop-csv=PATH] [--trace-csv=PATH] [--reset-reno-sack=1]
//       [--cubic-slow-start=ns3|rfc5681] [--vegas-alpha=A] [--vegas-beta=B] [--vegas-gamma=G]
//       [--rate-fix=0|1]
//       [--flight-csv=PATH --flight-flow=I --flight-from=S --flight-to=S]
//
// --variant is cubic, newreno, dctcp, bbr or vegas (TcpVegas with alpha 1, beta 3, gamma 1,
// packetsim's fixed thresholds, instead of ns-3.37's defaults 2, 4, 1, unless --vegas-alpha,
// --vegas-beta, --vegas-gamma say otherwise). Topology: s_i -1 Gb/s, 1 ms- r0 -RATE, DELAY- r1
// -1 Gb/s, 1 ms- d_i. Flow i starts at i * STAGGER. The bottleneck r0->r1 has one queue of
// QUEUE packets (--aqm):
// - droptail (default): the point-to-point device's DropTail queue, no queue disc;
// - step: a RedQueueDisc marking every ECN-capable packet that arrives to a queue above K
//   packets (instantaneous queue, QW = 1, MinTh = K, MaxTh = K + 1, hard drop off);
// - codel, fq_codel, pie: ns-3's CoDelQueueDisc, FqCoDelQueueDisc, PieQueueDisc with their
//   defaults except MaxSize = QUEUE packets (FQ-CoDel: quantum 1500, the device MTU, its
//   default here); ECN off.
// Every queue disc sits over a one-packet device queue. Every 100 ms writes each flow's cwnd,
// pacing rate and bytes delivered to --cwnd-csv (time_s,flow,cwnd_bytes,pacing_bps,
// delivered_bytes) and the packets waiting at the bottleneck to --queue-csv (time_s,len_pkts);
// at the end prints one JSON line: per-flow goodput, bottleneck drops and marks, time-average
// queue, departures, and the mean sojourn time of the queue disc (queue discs only); a queue
// disc's own statistics (drops and marks by reason) go to standard error. With --drop-csv,
// every queue-disc drop is written there (time_s,where,reason: `enqueue` for drops before
// enqueue, `dequeue` for CoDel's drops at dequeue), and with --aqm=codel also every change
// of CoDel's dropping state (where `state`, reason `enter` or `leave`) and of its count
// (where `count`, reason the new count). With --trace-csv, flow f0's sender writes one row
// per ACK and per segment sent (its columns are described at g_trace below). With
// --reset-reno-sack=1 (SACK off only), a probe corrects one ns-3.37 defect: the SACK marks
// ns-3 guesses from duplicate ACKs in fast recovery are cleared when recovery ends (see
// OnSenderRx and results.md, "Why CUBIC without SACK does not agree"). With
// --cubic-slow-start=rfc5681 TcpCubic's slow start adds one segment per ACK (a what-if; see
// TcpCubicRfcSlowStart).
//
// --rate-fix=1 replaces each sender's delivery-rate sampler (ns-3.37's TcpRateLinux) before
// its first data segment by FixedRateSampler below, this program's own sampler after the
// delivery-rate draft (draft-cheng-iccrg-delivery-rate-estimation) and Linux tcp_rate.c. It
// departs from TcpRateLinux in three points only, the defects results.md traces (the "BBR"
// section): the packet a sample is taken from is chosen afresh on every ACK; the ACK phase
// is measured once all deliveries of the ACK are in, from that packet's delivered time; and
// an invalid sample (no delivery, or an interval below the minimum RTT) carries rate 0, which
// TcpBbr ignores. Everything else (send-time state, app-limited marking, which sample is
// recorded) follows the same rules.
//
// With --flight-csv, flow I's sender writes one row
// per ACK it receives between --flight-from and --flight-to seconds (kind `ack`, after the
// ACK and what it sent are processed) and one per segment it sends (kind `tx`): time, the
// ACK or sequence number, SND.MAX (HighestSequence), cwnd, its congestion state, and its
// TcpTxBuffer's counts: BytesInFlight (what the sender compares with cwnd), SACKed, lost
// and retransmitted bytes, and the retransmitted bytes that are also SACKed, read from the
// buffer's printed sent list. ns-3.37's BytesInFlight is sent - SACKed - lost +
// retransmitted over the whole sent list, so a retransmission that the receiver SACKs stays
// in it until the cumulative ACK passes it; RFC 6675's SetPipe counts only unSACKed octets,
// so its pipe (by ns-3's own lost marks) is the column in_flight - retrans_sacked.
//
// Settings matched to packetsim's scenario (run.py): MSS 1460, initial cwnd 2, no delayed
// ACK, no timestamps, no limited transmit, min RTO 200 ms, 1 ms clock granularity, CUBIC
// without HyStart (packetsim has none). SACK off and classic (NewReno-style) recovery unless
// --sack=1 / --recovery=prr (ns-3.37's defaults are SACK on and TcpPrrRecovery). Not matched
// (ns-3.37's TcpCubic follows Linux 3.14): no Reno-friendly region, the cubic target uses the
// minimum RTT (delayMin), a 10 ms "cubic delta" after recovery, and per-ACK cnt arithmetic in
// whole segments; see results.md.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
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
    std::string queueCsv;
    uint32_t k;
    std::string aqm;
    bool sack;
    std::string recovery;
    std::string dropCsv;
    std::string traceCsv;
    bool resetRenoSack;
    std::string cubicSlowStart;
    uint32_t vegasAlpha;
    uint32_t vegasBeta;
    uint32_t vegasGamma;
    bool rateFix;
    std::string flightCsv;
    uint32_t flightFlow;
    double flightFrom;
    double flightTo;
};

// --rate-fix: a delivery-rate sampler written here (see the header). State per connection
// (`conn`) and per ACK (`ack`); each data packet carries its send-time snapshot in its
// TcpTxItem::RateInformation.
class FixedRateSampler : public TcpRateOps
{
  public:
    void SkbSent(TcpTxItem* item, bool idle) override
    {
        const Time now = Simulator::Now();
        if (idle)
        {
            // Nothing in flight: the interval of a later sample starts now.
            conn.m_firstSentTime = now;
            conn.m_deliveredTime = now;
        }
        TcpTxItem::RateInformation& snap = item->GetRateInformation();
        snap.m_delivered = conn.m_delivered;
        snap.m_deliveredTime = conn.m_deliveredTime;
        snap.m_firstSent = conn.m_firstSentTime;
        snap.m_isAppLimited = conn.m_appLimited != 0;
    }

    void SkbDelivered(TcpTxItem* item) override
    {
        if (!ackStarted)
        {
            // The first delivery of this ACK: no packet chosen yet.
            ack.m_priorDelivered = 0;
            ack.m_priorTime = Seconds(0);
            ackStarted = true;
        }
        TcpTxItem::RateInformation& snap = item->GetRateInformation();
        if (snap.m_deliveredTime == Time::Max())
        {
            return; // counted when it was SACKed
        }
        const Time now = Simulator::Now();
        conn.m_delivered += item->GetSeqSize();
        conn.m_deliveredTime = now;
        // The sample comes from the delivered packet sent last (largest snapshot).
        const bool later = snap.m_delivered > ack.m_priorDelivered;
        if (ack.m_priorDelivered == 0 || later)
        {
            ack.m_priorDelivered = snap.m_delivered;
            ack.m_priorTime = snap.m_deliveredTime;
            ack.m_isAppLimited = snap.m_isAppLimited;
            ack.m_sendElapsed = item->GetLastSent() - snap.m_firstSent;
            conn.m_firstSentTime = item->GetLastSent();
        }
        conn.m_txItemDelivered = snap.m_delivered;
        snap.m_deliveredTime = Time::Max();
    }

    void CalculateAppLimited(uint32_t cwnd,
                             uint32_t inFlight,
                             uint32_t mss,
                             const SequenceNumber32& tail,
                             const SequenceNumber32& next,
                             const uint32_t lostOut,
                             const uint32_t retransOut) override
    {
        const bool noFullSegment = tail - next < static_cast<int32_t>(mss);
        if (noFullSegment && inFlight < cwnd && lostOut <= retransOut)
        {
            conn.m_appLimited = std::max<uint32_t>(conn.m_delivered + inFlight, 1);
        }
    }

    const TcpRateSample& GenerateSample(uint32_t delivered,
                                        uint32_t lost,
                                        bool reneged,
                                        uint32_t priorInFlight,
                                        const Time& minRtt) override
    {
        if (conn.m_appLimited != 0 && conn.m_delivered > conn.m_appLimited)
        {
            conn.m_appLimited = 0; // the app-limited bubble is delivered
        }
        ack.m_ackedSacked = delivered;
        ack.m_bytesLoss = lost;
        ack.m_priorInFlight = priorInFlight;
        ack.m_deliveryRate = DataRate(0);
        const bool chosen = ackStarted;
        ackStarted = false;
        if (!chosen || ack.m_priorTime == Seconds(0) || reneged)
        {
            ack.m_delivered = -1;
            ack.m_interval = Seconds(0);
            return ack;
        }
        ack.m_ackElapsed = Simulator::Now() - ack.m_priorTime;
        ack.m_interval = std::max(ack.m_sendElapsed, ack.m_ackElapsed);
        ack.m_delivered = static_cast<int32_t>(conn.m_delivered - ack.m_priorDelivered);
        if (ack.m_interval < minRtt)
        {
            ack.m_interval = Seconds(0); // too short to trust: no rate
            return ack;
        }
        const bool recordIt = !ack.m_isAppLimited ||
                              static_cast<double>(ack.m_delivered) * conn.m_rateInterval.GetSeconds() >=
                                  static_cast<double>(conn.m_rateDelivered) *
                                      ack.m_interval.GetSeconds();
        if (recordIt)
        {
            conn.m_rateDelivered = ack.m_delivered;
            conn.m_rateInterval = ack.m_interval;
            conn.m_rateAppLimited = ack.m_isAppLimited;
        }
        ack.m_deliveryRate = DataRate(ack.m_delivered * 8.0 / ack.m_interval.GetSeconds());
        return ack;
    }

    const TcpRateConnection& GetConnectionRate() override
    {
        return conn;
    }

  private:
    TcpRateConnection conn;
    TcpRateSample ack;
    bool ackStarted{false};
};

// TcpSocketBase keeps its sampler in a protected member; a derived type may name it.
struct SamplerSlot : public TcpSocketBase
{
    static void Replace(TcpSocketBase* s, Ptr<TcpRateOps> ops)
    {
        s->*(&SamplerSlot::m_rateOps) = ops;
    }
};

bool g_rateFix = false;       // --rate-fix
std::vector<uint32_t> g_cwnd; // latest cwnd of each flow, bytes (0 before it starts)
uint64_t g_drops = 0;
uint64_t g_marks = 0;
uint64_t g_departures = 0;  // packets the bottleneck queue (disc) handed to the transmitter
double g_sojournSum = 0.0; // seconds, over the packets a queue disc dequeued
uint64_t g_sojournN = 0;
std::vector<uint64_t> g_pacing; // latest pacing rate of each flow, bit/s (bbr)
std::vector<Ptr<PacketSink>> g_sinks;
Ptr<QueueDisc> g_disc; // the bottleneck's queue disc, if any (its drop reasons go to stderr)
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

// Queue-disc drops before enqueue by reason and by whole second of the run (stderr).
std::map<std::string, std::map<int, uint64_t>> g_dropsBySecond;
FILE* g_dropCsv = nullptr; // --drop-csv, if given

void
LogDrop(const char* where, const char* reason)
{
    if (g_dropCsv)
    {
        std::fprintf(g_dropCsv, "%.9f,%s,%s\n", Simulator::Now().GetSeconds(), where, reason);
    }
}

void
OnDiscDropAfterDequeue(Ptr<const QueueDiscItem>, const char* reason)
{
    LogDrop("dequeue", reason);
}

void
OnCoDelState(bool, bool dropping)
{
    LogDrop("state", dropping ? "enter" : "leave");
}

void
OnCoDelCount(uint32_t, uint32_t count)
{
    LogDrop("count", std::to_string(count).c_str());
}

void
OnDiscDropReason(Ptr<const QueueDiscItem>, const char* reason)
{
    ++g_dropsBySecond[reason][static_cast<int>(Simulator::Now().GetSeconds())];
    LogDrop("enqueue", reason);
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    ++g_marks;
}

void
OnDiscDequeue(Ptr<const QueueDiscItem>)
{
    ++g_departures;
}

void
OnDeviceDequeue(Ptr<const Packet>)
{
    ++g_departures;
}

void
OnSojourn(Time t)
{
    g_sojournSum += t.GetSeconds();
    ++g_sojournN;
}

void
OnPacing(uint32_t flow, DataRate /*old*/, DataRate now)
{
    g_pacing[flow] = now.GetBitRate();
}

void
Sample(FILE* out, FILE* qout, double duration)
{
    const double t = Simulator::Now().GetSeconds();
    for (uint32_t i = 0; i < g_cwnd.size(); ++i)
    {
        if (g_cwnd[i] > 0)
        {
            std::fprintf(out,
                         "%.1f,f%u,%u,%llu,%llu\n",
                         t,
                         i,
                         g_cwnd[i],
                         static_cast<unsigned long long>(g_pacing[i]),
                         static_cast<unsigned long long>(g_sinks[i]->GetTotalRx()));
        }
    }
    std::fprintf(qout, "%.1f,%u\n", t, g_qLen);
    if (t + kSampleS < duration - 1e-9)
    {
        Simulator::Schedule(Seconds(kSampleS), &Sample, out, qout, duration);
    }
}

// Each sender's congestion state, highest sequence sent and recovery point, kept from its
// trace sources (for --trace-csv and --reset-reno-sack).
struct Sender
{
    Ptr<TcpSocketBase> sock;
    uint32_t ssthresh = 0;
    uint32_t state = 0;   // TcpSocketState::TcpCongState_t
    uint32_t highTx = 0;  // HighestSequence: the highest sequence number sent + 1
    uint32_t recover = 0; // highTx when fast recovery was entered (ns-3's m_recover)
};

std::vector<Sender> g_senders;
bool g_resetRenoSack = false; // --reset-reno-sack

// --trace-csv: flow f0's sender, one row per ACK it receives (the state after the ACK has
// been processed and whatever it let out has been sent) and one per segment it sends.
// Columns: time_s, kind (ack / tx / rtx: a segment below the highest sent so far), seq (the
// ACK number, or the segment's first sequence number, in segments from f0's first data
// byte), then f0's state after the event: cwnd and ssthresh (segments, fractional), the
// congestion state (ns-3's CA_* number: 0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss),
// BytesInFlight (segments: ns-3's pipe from its scoreboard), SND.NXT - SND.UNA (segments),
// and the scoreboard's sacked, lost and retransmitted counts (segments; without the SACK
// option these are ns-3's guesses from duplicate ACKs).
FILE* g_trace = nullptr;
uint32_t g_tIsn = 0;
bool g_tIsnSet = false;
uint32_t g_tSentMax = 0; // highest segment end sent so far, from f0's first data byte

void
TraceRow(const char* kind, uint32_t seq)
{
    const Sender& f0 = g_senders[0];
    Ptr<TcpTxBuffer> tx = f0.sock->GetTxBuffer();
    const double m = kMss;
    const uint32_t una = tx->HeadSequence().GetValue();
    std::fprintf(g_trace,
                 "%.6f,%s,%.0f,%.3f,%.3f,%u,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                 Simulator::Now().GetSeconds(),
                 kind,
                 static_cast<double>(seq - g_tIsn) / m,
                 g_cwnd[0] / m,
                 f0.ssthresh / m,
                 f0.state,
                 tx->BytesInFlight() / m,
                 (f0.highTx - una) / m,
                 tx->GetSacked() / m,
                 tx->GetLost() / m,
                 tx->GetRetransmitsCount() / m);
}

// Every ACK a sender receives, before ns-3 processes it (the socket's Rx trace).
void
OnSenderRx(uint32_t flow, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (!(h.GetFlags() & TcpHeader::ACK))
    {
        return;
    }
    const Sender& s = g_senders[flow];
    const uint32_t ack = h.GetAckNumber().GetValue();
    // --reset-reno-sack: without the SACK option ns-3 counts every duplicate ACK of fast
    // recovery as one more segment that left the network by marking a segment "sacked"
    // (TcpSocketBase::DupAck -> TcpTxBuffer::AddRenoSack), and BytesInFlight leaves sacked
    // segments out. ns-3.37 clears these guesses only at a timeout (ReTxTimeout ->
    // ResetRenoSack), not when recovery ends, so guesses beyond the ACK that ends recovery
    // stay (DiscardUpTo moves a sacked head's mark to the next segment and marks the head
    // lost, to be retransmitted). The probe clears them just before the ACK that ends
    // recovery is processed, as RFC 6582 §3.2 step 3 deflates the window there.
    if (g_resetRenoSack && s.state == TcpSocketState::CA_RECOVERY &&
        SequenceNumber32(ack) >= SequenceNumber32(s.recover))
    {
        s.sock->GetTxBuffer()->ResetRenoSack();
    }
    if (flow == 0 && g_trace)
    {
        // Logged once this ACK and what it let out have been processed.
        Simulator::ScheduleNow(&TraceRow, "ack", ack);
    }
}

// --flight-csv: per-ACK and per-segment state of one sender (see the head comment).
struct Flight
{
    FILE* out = nullptr;
    double from = 0;
    double to = 0;
    uint32_t highTx = 0;
    int congState = 0;
    uint32_t cwnd = 0;
};

Flight g_flight;
uint32_t g_flightFlow = 0;

bool
FlightWindow()
{
    const double t = Simulator::Now().GetSeconds();
    return g_flight.out && t >= g_flight.from && t <= g_flight.to;
}

// The retransmitted bytes of `buf` that are also SACKed, from its printed sent list (each
// item prints as {[begin;end|size][lost],[retrans],[sacked],[time]}, flags only when set).
uint32_t
RetransSacked(Ptr<const TcpTxBuffer> buf)
{
    std::ostringstream ss;
    ss << *buf;
    const std::string s = ss.str();
    uint32_t bytes = 0;
    size_t at = 0;
    while ((at = s.find('{', at)) != std::string::npos)
    {
        const size_t end = s.find('}', at);
        const std::string item = s.substr(at, end - at);
        if (item.find("[retrans]") != std::string::npos &&
            item.find("[sacked]") != std::string::npos)
        {
            const size_t bar = item.find('|');
            bytes += std::stoul(item.substr(bar + 1, item.find(']') - bar - 1));
        }
        at = end;
    }
    return bytes;
}

void
FlightRow(const char* kind, uint32_t seq, Ptr<const TcpSocketBase> sock)
{
    Ptr<TcpTxBuffer> buf = sock->GetTxBuffer();
    std::fprintf(g_flight.out,
                 "%.9f,%s,%u,%u,%u,%d,%u,%u,%u,%u,%u\n",
                 Simulator::Now().GetSeconds(),
                 kind,
                 seq,
                 g_flight.highTx,
                 g_flight.cwnd,
                 g_flight.congState,
                 buf->BytesInFlight(),
                 buf->GetSacked(),
                 buf->GetLost(),
                 buf->GetRetransmitsCount(),
                 RetransSacked(buf));
}

void
OnFlightRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase> sock)
{
    if (FlightWindow() && (h.GetFlags() & TcpHeader::ACK))
    {
        // After the ACK and the segments it releases are processed.
        Simulator::ScheduleNow(&FlightRow, "ack", h.GetAckNumber().GetValue(), sock);
    }
}

void
OnTraceTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    const uint32_t seq = h.GetSequenceNumber().GetValue();
    if (!g_tIsnSet)
    {
        g_tIsn = seq;
        g_tIsnSet = true;
    }
    const uint32_t end = seq - g_tIsn + p->GetSize();
    TraceRow(end <= g_tSentMax ? "rtx" : "tx", seq);
    g_tSentMax = std::max(g_tSentMax, end);
}

void
OnSenderSsth(uint32_t flow, uint32_t, uint32_t now)
{
    g_senders[flow].ssthresh = now;
}

void
OnSenderState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    Sender& s = g_senders[flow];
    s.state = now;
    if (now == TcpSocketState::CA_RECOVERY)
    {
        // EnterRecovery sets m_recover = m_highTxMark just before this state change.
        s.recover = s.highTx;
    }
}

void
OnFlightTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> sock)
{
    if (FlightWindow() && p->GetSize() > 0)
    {
        FlightRow("tx", h.GetSequenceNumber().GetValue(), sock);
    }
}

void
OnSenderHighTx(uint32_t flow, SequenceNumber32, SequenceNumber32 now)
{
    g_senders[flow].highTx = now.GetValue();
}

void
OnFlightHighTx(SequenceNumber32, SequenceNumber32 now)
{
    g_flight.highTx = now.GetValue();
}

void
OnFlightCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_flight.congState = static_cast<int>(now);
}

void
OnFlightCwnd(uint32_t, uint32_t now)
{
    g_flight.cwnd = now;
}

// Connects flow i's traces once its socket exists (BulkSend creates it at start).
void
HookCwnd(Ptr<BulkSendApplication> app, uint32_t flow)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "no socket yet");
    if (g_rateFix)
    {
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
        NS_ABORT_MSG_IF(!tcp, "not a TCP socket");
        SamplerSlot::Replace(PeekPointer(tcp), CreateObject<FixedRateSampler>());
    }
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, flow));
    s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnPacing, flow));
    Sender& snd = g_senders[flow];
    snd.sock = DynamicCast<TcpSocketBase>(s);
    NS_ABORT_MSG_IF(!snd.sock, "flow " << flow << "'s socket is not a TcpSocketBase");
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSenderSsth, flow));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnSenderState, flow));
    s->TraceConnectWithoutContext("HighestSequence", MakeBoundCallback(&OnSenderHighTx, flow));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSenderRx, flow));
    if (flow == 0 && g_trace)
    {
        s->TraceConnectWithoutContext("Tx", MakeCallback(&OnTraceTx));
    }
    if (g_flight.out && flow == g_flightFlow)
    {
        s->TraceConnectWithoutContext("Rx", MakeCallback(&OnFlightRx));
        s->TraceConnectWithoutContext("Tx", MakeCallback(&OnFlightTx));
        s->TraceConnectWithoutContext("HighestSequence", MakeCallback(&OnFlightHighTx));
        s->TraceConnectWithoutContext("CongState", MakeCallback(&OnFlightCongState));
        s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnFlightCwnd));
    }
}

// --cubic-slow-start=rfc5681 (a what-if, not a correction): ns-3.37's TcpCubic in slow start
// adds every segment an ACK acknowledges to cwnd, with no cap (TcpCubic::IncreaseWindow;
// after a timeout one cumulative ACK can add hundreds of segments), where RFC 5681 §3.1
// adds at most one SMSS per ACK (as ns-3's TcpNewReno::SlowStart and packetsim do) and
// Linux's tcp_slow_start stops at ssthresh. This TcpCubic adds one segment per ACK that
// acknowledges new data in slow start and is TcpCubic otherwise.
class TcpCubicRfcSlowStart : public TcpCubic
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ValidateTcpCubicRfcSlowStart")
                                .SetParent<TcpCubic>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpCubicRfcSlowStart>();
        return tid;
    }

    TcpCubicRfcSlowStart() = default;
    TcpCubicRfcSlowStart(const TcpCubicRfcSlowStart&) = default;

    std::string GetName() const override
    {
        return "TcpCubicRfcSlowStart";
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            if (segmentsAcked > 0)
            {
                tcb->m_cWnd += tcb->m_segmentSize;
            }
            return;
        }
        TcpCubic::IncreaseWindow(tcb, segmentsAcked);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpCubicRfcSlowStart>(this);
    }
};

void
SetTcpDefaults(const Args& a)
{
    const uint32_t big = 10000 * kMss;
    TypeId cc = TcpNewReno::GetTypeId();
    if (a.variant == "cubic")
    {
        cc = a.cubicSlowStart == "rfc5681" ? TcpCubicRfcSlowStart::GetTypeId()
                                            : TcpCubic::GetTypeId();
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    }
    else if (a.variant == "dctcp")
    {
        cc = TcpDctcp::GetTypeId();
    }
    else if (a.variant == "bbr")
    {
        cc = TcpBbr::GetTypeId();
    }
    else if (a.variant == "vegas")
    {
        // By default packetsim's (and ns-2's) thresholds, in segments (--vegas-alpha,
        // --vegas-beta, --vegas-gamma); ns-3.37's defaults are 2, 4, 1.
        cc = TcpVegas::GetTypeId();
        Config::SetDefault("ns3::TcpVegas::Alpha", UintegerValue(a.vegasAlpha));
        Config::SetDefault("ns3::TcpVegas::Beta", UintegerValue(a.vegasBeta));
        Config::SetDefault("ns3::TcpVegas::Gamma", UintegerValue(a.vegasGamma));
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(a.recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                       : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(big));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(a.sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    // BBR turns pacing on for its own socket (TcpBbr::InitPacingRate); nothing else paces.
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
    Args a;
    a.variant = "newreno";
    a.flows = 1;
    a.rateMbps = 100;
    a.delayMs = 20;
    a.queuePkts = 100;
    a.duration = 60;
    a.stagger = 0;
    a.k = 0;
    a.aqm = "droptail";
    a.sack = false;
    a.recovery = "classic";
    a.resetRenoSack = false;
    a.cubicSlowStart = "ns3";
    a.vegasAlpha = 1;
    a.vegasBeta = 3;
    a.vegasGamma = 1;
    a.rateFix = false;
    a.flightFlow = 0;
    a.flightFrom = 0;
    a.flightTo = 1e9;
    CommandLine cmd(__FILE__);
    cmd.AddValue("variant", "cubic, newreno, dctcp, bbr or vegas", a.variant);
    cmd.AddValue("flows", "number of flows", a.flows);
    cmd.AddValue("rate", "bottleneck rate, Mb/s", a.rateMbps);
    cmd.AddValue("delay", "bottleneck one-way delay, ms", a.delayMs);
    cmd.AddValue("queue", "bottleneck queue limit, packets", a.queuePkts);
    cmd.AddValue("duration", "run length, s", a.duration);
    cmd.AddValue("stagger", "start of flow i = i * stagger, s", a.stagger);
    cmd.AddValue("cwnd-csv", "where to write the per-flow samples", a.cwndCsv);
    cmd.AddValue("queue-csv", "where to write the bottleneck queue samples", a.queueCsv);
    cmd.AddValue("aqm", "droptail, step, codel, fq_codel or pie", a.aqm);
    cmd.AddValue("k", "step marking threshold, packets (aqm = step)", a.k);
    cmd.AddValue("sack", "SACK option on", a.sack);
    cmd.AddValue("recovery", "classic or prr", a.recovery);
    cmd.AddValue("drop-csv", "where to write every queue-disc drop (optional)", a.dropCsv);
    cmd.AddValue("trace-csv", "where to write f0's per-ACK and per-segment trace (optional)",
                 a.traceCsv);
    cmd.AddValue("reset-reno-sack",
                 "probe: clear the duplicate-ACK SACK guesses when fast recovery ends",
                 a.resetRenoSack);
    cmd.AddValue("cubic-slow-start",
                 "ns3 (TcpCubic's) or rfc5681 (what-if: one segment per ACK)",
                 a.cubicSlowStart);
    cmd.AddValue("vegas-alpha", "TcpVegas Alpha, segments", a.vegasAlpha);
    cmd.AddValue("vegas-beta", "TcpVegas Beta, segments", a.vegasBeta);
    cmd.AddValue("vegas-gamma", "TcpVegas Gamma, segments", a.vegasGamma);
    cmd.AddValue("rate-fix", "use FixedRateSampler instead of TcpRateLinux", a.rateFix);
    cmd.AddValue("flight-csv", "where to write one sender's per-ACK state (optional)",
                 a.flightCsv);
    cmd.AddValue("flight-flow", "the flow --flight-csv traces", a.flightFlow);
    cmd.AddValue("flight-from", "--flight-csv from this time, s", a.flightFrom);
    cmd.AddValue("flight-to", "--flight-csv up to this time, s", a.flightTo);
    cmd.Parse(argc, argv);
    const std::vector<std::string> variants{"cubic", "newreno", "dctcp", "bbr", "vegas"};
    const std::vector<std::string> aqms{"droptail", "step", "codel", "fq_codel", "pie"};
    if (std::find(variants.begin(), variants.end(), a.variant) == variants.end() ||
        std::find(aqms.begin(), aqms.end(), a.aqm) == aqms.end() ||
        (a.recovery != "classic" && a.recovery != "prr") ||
        (a.cubicSlowStart != "ns3" && a.cubicSlowStart != "rfc5681"))
    {
        std::fprintf(stderr,
                     "--variant must be cubic|newreno|dctcp|bbr|vegas, --aqm droptail|step|codel|"
                     "fq_codel|pie, --recovery classic|prr, --cubic-slow-start ns3|rfc5681\n");
        std::exit(2);
    }
    if (a.flows < 1 || a.flows > 1000 || a.rateMbps <= 0 || a.delayMs < 0 || a.queuePkts < 1 ||
        a.duration <= 0 || a.cwndCsv.empty() || a.queueCsv.empty() || (a.aqm == "step" && a.k < 1) ||
        (a.resetRenoSack && a.sack) || a.flightFlow >= a.flows || a.flightFrom > a.flightTo)
    {
        std::fprintf(stderr,
                     "bad arguments (--cwnd-csv and --queue-csv are required; step needs --k >= 1;"
                     " --reset-reno-sack needs --sack=0; --flight-flow < --flows;"
                     " --flight-from <= --flight-to)\n");
        std::exit(2);
    }
    return a;
}

} // namespace

int
main(int argc, char* argv[])
{
    const Args a = Parse(argc, argv);
    g_rateFix = a.rateFix;
    SetTcpDefaults(a);
    g_cwnd.assign(a.flows, 0);
    g_pacing.assign(a.flows, 0);
    g_senders.assign(a.flows, Sender());
    g_resetRenoSack = a.resetRenoSack;
    if (!a.traceCsv.empty())
    {
        g_trace = std::fopen(a.traceCsv.c_str(), "w");
        NS_ABORT_MSG_IF(!g_trace, "cannot write " << a.traceCsv);
        std::fprintf(g_trace,
                     "time_s,kind,seq,cwnd,ssthresh,state,bytes_in_flight,snd_nxt_una,sacked,"
                     "lost,retrans\n");
    }

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
    const bool aqm = a.aqm != "droptail";
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
    // installed, everywhere except the bottleneck's r0 side for the AQM cases.
    TrafficControlHelper none;
    for (auto& d : access)
    {
        none.Uninstall(d);
    }
    none.Uninstall(bottleneck);
    Ptr<PointToPointNetDevice> r0 = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0));
    const QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, a.queuePkts));
    if (aqm)
    {
        TrafficControlHelper tch;
        if (a.aqm == "step")
        {
            tch.SetRootQueueDisc("ns3::RedQueueDisc",
                                 "MaxSize",
                                 limit,
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
        }
        else if (a.aqm == "codel")
        {
            tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", limit);
        }
        else if (a.aqm == "fq_codel")
        {
            tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                                 "MaxSize",
                                 limit,
                                 "UseEcn",
                                 BooleanValue(false));
        }
        else
        {
            tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", limit);
        }
        QueueDiscContainer qd = tch.Install(NetDeviceContainer(r0));
        Ptr<QueueDisc> disc = qd.Get(0);
        g_disc = disc;
        disc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        disc->TraceConnectWithoutContext("Drop", MakeCallback(&OnDiscDrop));
        disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
        disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDiscDropReason));
        disc->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDiscDequeue));
        disc->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
        if (!a.dropCsv.empty())
        {
            g_dropCsv = std::fopen(a.dropCsv.c_str(), "w");
            if (!g_dropCsv)
            {
                std::fprintf(stderr, "tcp-dumbbell: cannot write %s\n", a.dropCsv.c_str());
                return 2;
            }
            std::fprintf(g_dropCsv, "time_s,where,reason\n");
            disc->TraceConnectWithoutContext("DropAfterDequeue",
                                             MakeCallback(&OnDiscDropAfterDequeue));
            if (a.aqm == "codel")
            {
                disc->TraceConnectWithoutContext("DropState", MakeCallback(&OnCoDelState));
                disc->TraceConnectWithoutContext("Count", MakeCallback(&OnCoDelCount));
            }
        }
    }
    else
    {
        Ptr<Queue<Packet>> q = r0->GetQueue();
        q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
        q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
        q->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDeviceDequeue));
        // With no queue disc, a packet that finds the device queue full (its flow control
        // has stopped it) is dropped by the traffic-control layer without a trace: count the
        // packets r0 forwards toward the receivers and those the queue admits.
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
        routers.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&OnForward));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    if (!a.flightCsv.empty())
    {
        g_flight.out = std::fopen(a.flightCsv.c_str(), "w");
        NS_ABORT_MSG_IF(!g_flight.out, "cannot write " << a.flightCsv);
        g_flight.from = a.flightFrom;
        g_flight.to = a.flightTo;
        g_flightFlow = a.flightFlow;
        std::fprintf(g_flight.out,
                     "time_s,kind,seq,high_tx,cwnd,cong_state,in_flight,sacked,lost,retrans,"
                     "retrans_sacked\n");
    }

    for (uint32_t i = 0; i < a.flows; ++i)
    {
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), kPort));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        g_sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));
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
    FILE* qcsv = std::fopen(a.queueCsv.c_str(), "w");
    NS_ABORT_MSG_IF(!qcsv, "cannot write " << a.queueCsv);
    std::fprintf(csv, "time_s,flow,cwnd_bytes,pacing_bps,delivered_bytes\n");
    std::fprintf(qcsv, "time_s,len_pkts\n");
    Simulator::Schedule(Seconds(0), &Sample, csv, qcsv, a.duration);
    Simulator::Stop(Seconds(a.duration));
    Simulator::Run();
    std::fclose(csv);
    std::fclose(qcsv);
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    if (g_flight.out)
    {
        std::fclose(g_flight.out);
    }
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
                    g_sinks[i]->GetTotalRx() * 8.0 / active);
    }
    std::printf("],\"drops\":%llu,\"marks\":%llu,\"mean_queue_pkts\":%.4f,"
                "\"departures\":%llu,\"mean_sojourn_ms\":%.4f}\n",
                static_cast<unsigned long long>(g_drops),
                static_cast<unsigned long long>(g_marks),
                g_qArea / a.duration,
                static_cast<unsigned long long>(g_departures),
                g_sojournN ? 1e3 * g_sojournSum / g_sojournN : -1.0);
    if (g_disc)
    {
        std::ostringstream stats;
        g_disc->GetStats().Print(stats);
        std::fprintf(stderr, "%s\n", stats.str().c_str());
        for (const auto& [reason, hist] : g_dropsBySecond)
        {
            std::fprintf(stderr, "drops by second, %s:", reason.c_str());
            for (const auto& [sec, n] : hist)
            {
                std::fprintf(stderr, " %d:%llu", sec, static_cast<unsigned long long>(n));
            }
            std::fprintf(stderr, "\n");
        }
    }
    Simulator::Destroy();
    return 0;
}
