//! Looking inside one run: packet captures (pcap) of chosen link directions.
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
//! A filter ([`TraceFilter`]) chooses link directions, flows and a time window `[from, to)`.

pub mod wire;

use crate::ids::{EgressId, FlowId};
use crate::packet::{Body, Packet};
use packetsim_kernel::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::collections::HashMap;
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
}

/// Records a run's packets as it goes (see the module doc).
pub struct Tracer {
    filter: TraceFilter,
    snaplen: u32,
    /// Indexed by egress: the pcap file of each covered direction.
    pcap: Vec<Option<PcapSink>>,
    tcp: HashMap<FlowId, wire::TcpWireState>,
    buf: Vec<u8>,
    error: Option<io::Error>,
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
    /// A tracer for the directions named in `names` (indexed by egress id), creating its
    /// files now.
    pub fn new(cfg: &TraceConfig, names: &[String]) -> io::Result<Tracer> {
        let mut pcap = Vec::with_capacity(names.len());
        if let Some(dir) = &cfg.pcap_dir {
            std::fs::create_dir_all(dir)?;
        }
        let snaplen = cfg.snaplen.max(20);
        for (i, name) in names.iter().enumerate() {
            let e = EgressId(i as u32);
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
        })
    }

    /// Packet `p` reached the far end of `via` at `now`; `forward` when it goes from its
    /// flow's sending end to its receiving end.
    pub fn arrive(&mut self, now: Time, via: EgressId, p: &Packet, forward: bool) {
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
    pub fn finish(self) -> io::Result<TraceSummary> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut out = TraceSummary::default();
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
