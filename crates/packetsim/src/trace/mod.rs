//! Looking inside one run: packet captures (pcap) and an event trace of chosen link
//! directions.
//!
//! A [`Tracer`] is attached to a [`World`](crate::world::World) before it runs
//! ([`World::set_tracer`](crate::world::World::set_tracer)); the world calls it only when one
//! is attached, from cold functions, so a run without tracing pays one test of an `Option` per
//! packet arrival and nothing else.
//!
//! # pcap
//!
//! One libpcap file per chosen link direction (`LINKTYPE_RAW`: each record is an IPv4 packet,
//! nanosecond timestamps), named after the direction: `LINK_FROM-TO.pcap`. A packet is
//! recorded when its last bit reaches the far end of the direction, as a capture on the
//! receiving interface would see it: the timestamp is that arrival time, and packets dropped
//! at the queue or lost on the wire are not in the file (the event trace has them). The bytes
//! are synthesised from the typed headers ([`wire`]); records are cut to the snap length.
//!
//! # Event trace
//!
//! `events.csv`: one tidy row per packet event on a covered direction ([`EventKind`]):
//! `enqueue` (admitted by the queue), `mark` (the queue set CE), `drop` (with its reason:
//! refused by the queue, or lost on the wire), `dequeue` (its transmission starts), `receive`
//! (its last bit reaches the far end). Rows are kept in memory and written sorted by time at
//! the end of the run, because a lazy FIFO direction knows a packet's dequeue time when it
//! admits it (its row is made then). On a lazy direction a packet lost on the wire (error
//! model, scheduled outage) is decided when it is admitted, and its `drop` row has that time.
//!
//! A filter ([`TraceFilter`]) chooses link directions, flows and a time window `[from, to)`;
//! it applies to both outputs.
//!
//! # Flow monitor
//!
//! [`monitor::FlowMonitor`] (`simulation.flow_monitor = true`) rides on the same calls: a
//! tracer with neither output but a monitor attached sees every event, unfiltered.

pub mod monitor;
pub mod wire;

pub use monitor::FlowMonitor;

use crate::ids::{EgressId, FlowId};
use crate::packet::{Body, Chunk, Ecn, Packet, Precedence};
use crate::queue::DropReason;
use packetsim_kernel::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// The default snap length: whole packets.
pub const DEFAULT_SNAPLEN: u32 = 65535;

/// What a tracer records: link directions, flows and a time window.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFilter {
    /// The link directions covered (`None`: every one).
    pub egresses: Option<Vec<EgressId>>,
    /// The flows covered (`None`: every one, and packets of no flow).
    pub flows: Option<Vec<FlowId>>,
    /// Packets and events before this time are left out.
    pub from: Time,
    /// Packets and events at or after this time are left out.
    pub to: Time,
}

impl Default for TraceFilter {
    fn default() -> TraceFilter {
        TraceFilter {
            egresses: None,
            flows: None,
            from: Time::ZERO,
            to: Time::MAX,
        }
    }
}

impl TraceFilter {
    /// Whether direction `e` is covered.
    pub fn covers_egress(&self, e: EgressId) -> bool {
        self.egresses.as_ref().is_none_or(|v| v.contains(&e))
    }
    /// Whether packet `p` at time `now` is covered (direction aside).
    pub fn covers(&self, now: Time, p: &Packet) -> bool {
        if now < self.from || now >= self.to {
            return false;
        }
        match &self.flows {
            None => true,
            Some(fs) => !matches!(p.body, Body::Control(_)) && fs.contains(&p.flow),
        }
    }
}

/// What to write, where.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceConfig {
    /// Write pcap files into this folder.
    pub pcap_dir: Option<PathBuf>,
    /// Write the event trace (`events.csv`) into this folder.
    pub events_dir: Option<PathBuf>,
    /// Bytes kept of each packet in the pcap files (at least 20, the IPv4 header).
    pub snaplen: u32,
    /// What is recorded.
    pub filter: TraceFilter,
}

struct PcapSink {
    path: PathBuf,
    w: PcapWriter<BufWriter<File>>,
    packets: u64,
}

/// What a tracer wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceSummary {
    /// Each pcap file written and the packets in it.
    pub pcap_files: Vec<(PathBuf, u64)>,
    /// The event trace written and its rows.
    pub events_file: Option<(PathBuf, u64)>,
}

/// What happened to a packet on a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The queue admitted it.
    Enqueue,
    /// The queue marked it CE instead of dropping it (RFC 3168).
    Mark,
    /// It was dropped: by the queue, or lost on the wire.
    Drop(DropReason),
    /// Its transmission started.
    Dequeue,
    /// Its last bit reached the far end.
    Receive,
}

impl EventKind {
    /// The name written in the `event` column.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Enqueue => "enqueue",
            EventKind::Mark => "mark",
            EventKind::Drop(_) => "drop",
            EventKind::Dequeue => "dequeue",
            EventKind::Receive => "receive",
        }
    }
}

/// One row of the event trace (a packet's fields copied, so rows outlive packets).
#[derive(Clone, Copy, Debug)]
struct Row {
    time: Time,
    kind: EventKind,
    egress: EgressId,
    flow: Option<FlowId>,
    uid: u64,
    proto: &'static str,
    seq: Option<u64>,
    ack: Option<u32>,
    size: u32,
    dscp: u8,
    precedence: Precedence,
    ecn: Ecn,
}

/// The column names of `events.csv`, in order (documented in docs/tracing.md).
pub const EVENT_COLUMNS: &str =
    "time_s,event,reason,link,flow,uid,proto,seq,ack,size_bytes,dscp,precedence,ecn";

/// The column names of `events.csv` one by one (the header row the writer writes; the same
/// as [`EVENT_COLUMNS`]).
pub const EVENT_COLUMN_NAMES: [&str; 13] = [
    "time_s",
    "event",
    "reason",
    "link",
    "flow",
    "uid",
    "proto",
    "seq",
    "ack",
    "size_bytes",
    "dscp",
    "precedence",
    "ecn",
];

/// Records a run's packets as it goes (see the module doc).
pub struct Tracer {
    filter: TraceFilter,
    snaplen: u32,
    /// Indexed by egress: the pcap file of each covered direction.
    pcap: Vec<Option<PcapSink>>,
    tcp: HashMap<FlowId, wire::TcpWireState>,
    buf: Vec<u8>,
    error: Option<io::Error>,
    /// The event trace's folder, when it is written.
    events_dir: Option<PathBuf>,
    rows: Vec<Row>,
    names: Vec<String>,
    flow_names: Vec<String>,
    /// The flow monitor (`simulation.flow_monitor`), when on.
    monitor: Option<Box<FlowMonitor>>,
    /// Handoff rows: (time, mobile, base station left, base station joined).
    handoffs: Vec<(Time, String, String, String)>,
}

/// The file name of a direction: its name with characters unsafe in file names replaced.
fn file_stem(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Tracer {
    /// A tracer for the directions named in `names` (indexed by egress id) and the flows named
    /// in `flow_names` (indexed by flow id), creating its folders and pcap files now.
    pub fn new(cfg: &TraceConfig, names: &[String], flow_names: &[String]) -> io::Result<Tracer> {
        if let Some(dir) = &cfg.events_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| io::Error::other(format!("{}: {e}", dir.display())))?;
        }
        let mut pcap = Vec::with_capacity(names.len());
        if let Some(dir) = &cfg.pcap_dir {
            std::fs::create_dir_all(dir)?;
        }
        let snaplen = cfg.snaplen.max(20);
        for (i, name) in names.iter().enumerate() {
            let e = EgressId(i as u32);
            if let Some(dir) = &cfg.pcap_dir {
                // A reused folder keeps no capture of a direction this run does not cover.
                let path = dir.join(format!("{}.pcap", file_stem(name)));
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(io::Error::other(format!("{}: {e}", path.display())))
                    }
                    _ => {}
                }
            }
            let sink = match &cfg.pcap_dir {
                Some(dir) if cfg.filter.covers_egress(e) => {
                    let path = dir.join(format!("{}.pcap", file_stem(name)));
                    Some(open_pcap(&path, snaplen)?)
                }
                _ => None,
            };
            pcap.push(sink);
        }
        Ok(Tracer {
            filter: cfg.filter.clone(),
            snaplen,
            pcap,
            tcp: HashMap::new(),
            buf: Vec::with_capacity(2048),
            error: None,
            events_dir: cfg.events_dir.clone(),
            rows: Vec::new(),
            names: names.to_vec(),
            flow_names: flow_names.to_vec(),
            monitor: None,
            handoffs: Vec::new(),
        })
    }

    /// Whether the event trace is on.
    pub fn events_on(&self) -> bool {
        self.events_dir.is_some()
    }

    /// Attaches the flow monitor: it sees every event, whatever the filter.
    pub fn set_monitor(&mut self, m: FlowMonitor) {
        self.monitor = Some(Box::new(m));
    }

    /// The flow monitor, when one is attached.
    pub fn monitor(&self) -> Option<&FlowMonitor> {
        self.monitor.as_deref()
    }

    /// Packet `p` is handed to its endpoint at `t` (for the flow monitor).
    pub fn deliver(&mut self, t: Time, p: &Packet) {
        if let Some(m) = self.monitor.as_deref_mut() {
            m.deliver(t, p);
        }
    }

    /// Records `kind` happening to `p` on direction `e` at `t`, if the filter covers it.
    pub fn event(&mut self, t: Time, kind: EventKind, e: EgressId, p: &Packet) {
        if let Some(m) = self.monitor.as_deref_mut() {
            m.event(t, kind, e, p);
        }
        if self.events_dir.is_none() || !self.filter.covers_egress(e) || !self.filter.covers(t, p) {
            return;
        }
        let (proto, seq, ack) = match &p.body {
            Body::Tcp(h) => ("tcp", Some(h.seq.0 as u64), Some(h.ack.0)),
            Body::Udp { seq, .. } => ("udp", Some(*seq), None),
            Body::Sctp(s) => (
                "sctp",
                s.chunks.iter().find_map(|c| match c {
                    Chunk::Data(d) => Some(d.tsn.0 as u64),
                    _ => None,
                }),
                s.chunks.iter().find_map(|c| match c {
                    Chunk::Sack(k) => Some(k.cum_tsn.0),
                    _ => None,
                }),
            ),
            Body::Control(_) => ("control", None, None),
        };
        self.rows.push(Row {
            time: t,
            kind,
            egress: e,
            flow: (!matches!(p.body, Body::Control(_))).then_some(p.flow),
            uid: p.uid,
            proto,
            seq,
            ack,
            size: p.size,
            dscp: p.dscp,
            precedence: p.precedence(),
            ecn: p.ecn,
        });
    }

    /// A mobile's handoff decision at `t` (a wireless channel's beacon rule): `from` the base
    /// station it left (empty: it was detached), `to` the one it joined (empty: it lost
    /// `from`). A row of its own in `events.csv` (`event` = `handoff`), inside the time window.
    pub fn handoff(&mut self, t: Time, mobile: &str, from: &str, to: &str) {
        if self.events_dir.is_none() || t < self.filter.from || t >= self.filter.to {
            return;
        }
        self.handoffs
            .push((t, mobile.to_string(), from.to_string(), to.to_string()));
    }

    /// Writes the event trace to `out` with the `csv` crate (RFC 4180: a name holding a
    /// comma, quote or line break is quoted), rows sorted by time (ties in the order they
    /// were made; a handoff before the packet rows of its instant). Numbers are formatted
    /// here, as `Display` writes them, and handed to the writer as finished fields.
    fn write_events<W: io::Write>(&mut self, out: W) -> csv::Result<()> {
        self.rows.sort_by_key(|r| r.time);
        self.handoffs.sort_by_key(|h| h.0);
        let mut w = csv::WriterBuilder::new()
            .buffer_capacity(1 << 16)
            .from_writer(out);
        w.write_record(EVENT_COLUMN_NAMES)?;
        // One scratch buffer for every number; the writer copies each field at once.
        let mut num = String::with_capacity(32);
        fn field<W: io::Write>(
            w: &mut csv::Writer<W>,
            num: &mut String,
            v: impl std::fmt::Display,
        ) -> csv::Result<()> {
            num.clear();
            let _ = write!(num, "{v}");
            w.write_field(num.as_bytes())
        }
        let mut hs = self.handoffs.iter().peekable();
        let handoff_row = |w: &mut csv::Writer<W>,
                           num: &mut String,
                           h: &(Time, String, String, String)|
         -> csv::Result<()> {
            // time_s, event, reason = FROM->TO, link = the mobile, nine empty columns.
            field(w, num, h.0.as_secs_f64())?;
            let reason = format!("{}->{}", h.2, h.3);
            w.write_record(["handoff", &reason, &h.1, "", "", "", "", "", "", "", "", ""])
        };
        for r in &self.rows {
            while let Some(h) = hs.next_if(|h| h.0 <= r.time) {
                handoff_row(&mut w, &mut num, h)?;
            }
            let reason = match r.kind {
                EventKind::Drop(d) => d.name(),
                _ => "",
            };
            let flow = r
                .flow
                .and_then(|f| self.flow_names.get(f.idx()))
                .map(String::as_str)
                .unwrap_or("");
            field(&mut w, &mut num, r.time.as_secs_f64())?;
            w.write_field(r.kind.name())?;
            w.write_field(reason)?;
            w.write_field(&self.names[r.egress.idx()])?;
            w.write_field(flow)?;
            field(&mut w, &mut num, r.uid)?;
            w.write_field(r.proto)?;
            match r.seq {
                Some(v) => field(&mut w, &mut num, v)?,
                None => w.write_field("")?,
            }
            match r.ack {
                Some(v) => field(&mut w, &mut num, v)?,
                None => w.write_field("")?,
            }
            field(&mut w, &mut num, r.size)?;
            field(&mut w, &mut num, r.dscp)?;
            w.write_field(match r.precedence {
                Precedence::In => "in",
                Precedence::Out => "out",
            })?;
            w.write_field(match r.ecn {
                Ecn::NotEct => "not_ect",
                Ecn::Ect0 => "ect0",
                Ecn::Ect1 => "ect1",
                Ecn::Ce => "ce",
            })?;
            w.write_record(None::<&[u8]>)?;
        }
        for h in hs {
            handoff_row(&mut w, &mut num, h)?;
        }
        w.flush()?;
        Ok(())
    }

    /// Packet `p` reached the far end of `via` at `now`; `forward` when it goes from its
    /// flow's sending end to its receiving end.
    pub fn arrive(&mut self, now: Time, via: EgressId, p: &Packet, forward: bool) {
        self.event(now, EventKind::Receive, via, p);
        let Some(Some(sink)) = self.pcap.get_mut(via.idx()) else {
            return;
        };
        if self.error.is_some() || !self.filter.covers(now, p) {
            return;
        }
        self.buf.clear();
        let ports = wire::Ports::of(p.flow, &p.body, forward);
        let st = self.tcp.entry(p.flow).or_default();
        let len = wire::encode(p, ports, forward, st, &mut self.buf);
        let keep = len.min(self.snaplen as usize);
        let ts = std::time::Duration::from_nanos(now.as_nanos());
        match sink
            .w
            .write_packet(&PcapPacket::new(ts, len as u32, &self.buf[..keep]))
        {
            Ok(_) => sink.packets += 1,
            Err(e) => self.error = Some(io::Error::other(format!("{}: {e}", sink.path.display()))),
        }
    }

    /// Flushes every file; the first write error of the run, if any, is returned here.
    pub fn finish(mut self) -> io::Result<TraceSummary> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut out = TraceSummary::default();
        if let Some(dir) = self.events_dir.clone() {
            let path = dir.join("events.csv");
            let tmp = path.with_extension("csv.tmp");
            let written = File::create(&tmp)
                .and_then(|f| self.write_events(f).map_err(io::Error::from))
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| io::Error::other(format!("{}: {e}", path.display())));
            crate::experiment::manifest::remove_tmp_on_error(&tmp, written)?;
            out.events_file = Some((path, self.rows.len() as u64));
        }
        for sink in self.pcap.into_iter().flatten() {
            let mut w = sink.w.into_writer();
            io::Write::flush(&mut w)
                .map_err(|e| io::Error::other(format!("{}: {e}", sink.path.display())))?;
            out.pcap_files.push((sink.path, sink.packets));
        }
        Ok(out)
    }
}

fn open_pcap(path: &Path, snaplen: u32) -> io::Result<PcapSink> {
    let f = File::create(path).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
    let header = PcapHeader {
        version_major: 2,
        version_minor: 4,
        ts_correction: 0,
        ts_accuracy: 0,
        snaplen,
        datalink: DataLink::RAW,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
    };
    let w = PcapWriter::with_header(BufWriter::new(f), header)
        .map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
    Ok(PcapSink {
        path: path.to_owned(),
        w,
        packets: 0,
    })
}

#[cfg(test)]
mod tests {
    //! The event trace's writer, driven by a scripted sequence of events: the exact bytes of
    //! `events.csv`, and RFC 4180 §2 quoting (rule 6: a field holding a comma, quote or line
    //! break is enclosed in double quotes; rule 7: a quote inside it is doubled) of the names
    //! a scenario chooses (links, nodes, flows), which are the only free-text fields.
    use super::*;
    use crate::ids::Addr;
    use crate::packet::dscp;

    /// A fresh folder under the system's temp dir, removed when dropped.
    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let p = std::env::temp_dir().join(format!("packetsim-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
        fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn datagram(uid: u64, seq: u64, flow: u32) -> Packet {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq, payload: 960 });
        p.uid = uid;
        p.flow = FlowId(flow);
        p.size = 1000;
        p.dscp = dscp::BE;
        p.ecn = Ecn::NotEct;
        p
    }

    /// A tracer writing only the event trace, for two directions and two flows whose names
    /// need quoting or not, fed a drop, a handoff and a receive out of time order.
    fn scripted(t: &TempDir) -> Tracer {
        let cfg = TraceConfig {
            events_dir: Some(t.path().to_owned()),
            ..TraceConfig::default()
        };
        let names = [
            "bottleneck:r1->r2".to_string(),
            "odd,link:\"r1\"->r2".to_string(),
        ];
        let flows = ["f,1".to_string(), "plain".to_string()];
        let mut tr = Tracer::new(&cfg, &names, &flows).unwrap();
        let mut a = datagram(7, 3, 0);
        a.dscp = dscp::AF12;
        a.ecn = Ecn::Ect0;
        tr.event(
            Time::from_nanos(1_500_000),
            EventKind::Drop(DropReason::Overflow),
            EgressId(1),
            &a,
        );
        tr.event(
            Time::from_nanos(2_000_000),
            EventKind::Receive,
            EgressId(0),
            &datagram(8, 4, 1),
        );
        tr.handoff(Time::from_nanos(1_000_000), "m\"1", "ap,1", "");
        tr
    }

    const EXPECTED: &str = "\
time_s,event,reason,link,flow,uid,proto,seq,ack,size_bytes,dscp,precedence,ecn
0.001,handoff,\"ap,1->\",\"m\"\"1\",,,,,,,,,
0.0015,drop,overflow,\"odd,link:\"\"r1\"\"->r2\",\"f,1\",7,udp,3,,1000,12,out,ect0
0.002,receive,,bottleneck:r1->r2,plain,8,udp,4,,1000,0,in,not_ect
";

    #[test]
    fn names_holding_a_comma_or_quote_are_quoted_per_rfc_4180() {
        let t = TempDir::new("trace-quote");
        let mut tr = scripted(&t);
        let mut out = Vec::new();
        tr.write_events(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), EXPECTED);
    }

    #[test]
    fn events_csv_reads_back_to_the_names_and_thirteen_columns() {
        let t = TempDir::new("trace-read");
        let summary = scripted(&t).finish().unwrap();
        let path = t.path().join("events.csv");
        assert_eq!(summary.events_file, Some((path.clone(), 2)));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), EXPECTED);
        assert!(!path.with_extension("csv.tmp").exists());
        let mut r = csv::Reader::from_path(&path).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
        assert_eq!(header, EVENT_COLUMN_NAMES);
        assert_eq!(header.join(","), EVENT_COLUMNS);
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|row| row.len() == 13));
        assert_eq!(&rows[0][2], "ap,1->");
        assert_eq!(&rows[0][3], "m\"1");
        assert_eq!(&rows[1][3], "odd,link:\"r1\"->r2");
        assert_eq!(&rows[1][4], "f,1");
        assert_eq!(&rows[2][3], "bottleneck:r1->r2");
    }
}
