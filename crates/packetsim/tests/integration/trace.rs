//! Packet captures of a run (`trace` module): the pcap files read back with the crates that
//! wrote them, against the world's own counts.

use crate::{line_scenario, load};
use etherparse::{NetSlice, SlicedPacket, TcpOptionElement, TransportSlice};
use packetsim::scenario;
use pcap_file::pcap::PcapReader;
use pcap_file::{DataLink, TsResolution};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packetsim-trace-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// One pcap record: timestamp (ns), captured bytes, original length.
struct Rec {
    ns: u128,
    data: Vec<u8>,
    orig_len: u32,
}

fn read(path: &Path) -> (pcap_file::pcap::PcapHeader, Vec<Rec>) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = PcapReader::new(f).unwrap();
    let header = r.header();
    let mut v = Vec::new();
    // The raw reader: pcap-file 2.0's checked `next_packet` refuses records whose original
    // length exceeds the snap length, which is what a snap length is for.
    while let Some(p) = r.next_raw_packet() {
        let p = p.unwrap();
        assert!(p.incl_len <= header.snaplen && p.incl_len <= p.orig_len);
        assert!(p.ts_frac < 1_000_000_000, "nanoseconds");
        v.push(Rec {
            ns: p.ts_sec as u128 * 1_000_000_000 + p.ts_frac as u128,
            data: p.data.into_owned(),
            orig_len: p.orig_len,
        });
    }
    (header, v)
}

/// A SACK TCP flow with timestamps over a 1 Mb/s bottleneck with a 10-packet queue: losses,
/// so retransmissions and SACK blocks.
fn lossy() -> String {
    line_scenario(
        "1Mbps",
        "20ms",
        10,
        "app = \"bulk\"\ntcp = { variant = \"sack\", timestamps = true }",
    )
}

#[test]
fn every_arrival_on_a_direction_is_one_record_of_real_ipv4_tcp() {
    let sc = load(&lossy(), &["simulation.duration=5s"]);
    let dir = tmp("all");
    let (o, written) = scenario::run_traced(&sc, 1, Some(&dir), None).unwrap();
    // Every direction of every link gets a file.
    assert_eq!(written.pcap_files.len(), o.world.net.egresses.len());
    for e in &o.world.net.egresses {
        let stem = e.name.replace("->", "-").replace(':', "_");
        let path = dir.join(format!("{stem}.pcap"));
        let (h, recs) = read(&path);
        assert_eq!(h.datalink, DataLink::RAW);
        assert_eq!(h.ts_resolution, TsResolution::NanoSecond);
        assert_eq!(h.snaplen, 65535);
        assert_eq!(recs.len() as u64, e.stats.delivered, "{}", e.name);
        assert!(recs.windows(2).all(|w| w[0].ns <= w[1].ns), "time order");
        for r in &recs {
            let s = SlicedPacket::from_ip(&r.data).unwrap();
            let Some(NetSlice::Ipv4(ip)) = &s.net else {
                panic!("IPv4")
            };
            let iph = ip.header().to_header();
            assert_eq!(iph.total_len as u32, r.orig_len);
            assert_eq!(iph.header_checksum, iph.calc_header_checksum());
            let Some(TransportSlice::Tcp(t)) = &s.transport else {
                panic!("TCP")
            };
            let th = t.to_header();
            assert_eq!(
                th.checksum,
                th.calc_checksum_ipv4(&iph, t.payload()).unwrap()
            );
        }
    }
    // The bottleneck drops, so the receiver's ACKs carry SACK blocks (RFC 2018) and every
    // segment carries timestamps (RFC 7323).
    let (_, acks) = read(&dir.join("bottleneck_r2-r1.pcap"));
    let mut sacks = 0;
    for r in &acks {
        let (t, _) = etherparse::TcpHeader::from_slice(&r.data[20..]).unwrap();
        let opts: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts
            .iter()
            .any(|o| matches!(o, TcpOptionElement::Timestamp(..))));
        sacks += opts
            .iter()
            .any(|o| matches!(o, TcpOptionElement::SelectiveAcknowledgement(..)))
            as usize;
    }
    let packetsim::world::Agent::TcpSender(sender) =
        &o.world.agents[o.world.flows[0].sender.idx()].agent
    else {
        panic!("a TCP flow")
    };
    let snd = sender.stats().retransmits;
    assert!(snd > 0, "the scenario must lose packets");
    assert!(sacks > 0, "no SACK blocks in {} ACKs", acks.len());
    // On the sender's first link, every transmission is seen: data segments whose sequence
    // range starts below the highest already seen are the sender's retransmissions.
    let (_, data) = read(&dir.join("in_s-r1.pcap"));
    let mut high = 0u32;
    let mut retx = 0u64;
    for r in &data {
        let (t, rest) = etherparse::TcpHeader::from_slice(&r.data[20..]).unwrap();
        if rest.is_empty() {
            continue;
        }
        if t.sequence_number < high {
            retx += 1;
        }
        high = high.max(t.sequence_number + rest.len() as u32);
    }
    assert_eq!(retx, snd);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_trace_table_chooses_a_direction_a_window_and_a_snap_length() {
    let text = format!(
        "{}\n[trace]\nlinks = [\"bottleneck:a_to_b\"]\nfrom = \"1s\"\nto = \"2s\"\nsnaplen = 54\n",
        lossy()
    );
    let sc = load(&text, &["simulation.duration=3s"]);
    let dir = tmp("window");
    let (_, written) = scenario::run_traced(&sc, 1, Some(&dir), None).unwrap();
    assert_eq!(written.pcap_files.len(), 1);
    assert_eq!(written.pcap_files[0].0, dir.join("bottleneck_r1-r2.pcap"));
    let (h, recs) = read(&written.pcap_files[0].0);
    assert_eq!(h.snaplen, 54);
    assert_eq!(recs.len() as u64, written.pcap_files[0].1);
    // 1 Mb/s for one second: about 85 full segments, all inside [1 s, 2 s).
    assert!((70..=90).contains(&recs.len()), "{}", recs.len());
    for r in &recs {
        assert!((1_000_000_000..2_000_000_000).contains(&r.ns), "{}", r.ns);
        assert_eq!(r.data.len(), 54, "cut to the snap length");
        assert_eq!(r.orig_len, 1512, "20 + 20 + 12 (timestamps) + 1460");
    }
}

#[test]
fn a_flow_filter_leaves_out_the_other_flows() {
    let text = format!(
        "{}\n[flows.g]\nfrom = \"s\"\nto = \"d\"\napp = \"bulk\"\n\n[trace]\nflows = [\"g\"]\nlinks = [\"out\"]\n",
        lossy()
    );
    let sc = load(&text, &["simulation.duration=2s"]);
    let dir = tmp("flows");
    let (o, written) = scenario::run_traced(&sc, 1, Some(&dir), None).unwrap();
    assert_eq!(written.pcap_files.len(), 2);
    let g = o.world.flows.iter().position(|f| f.name == "g").unwrap() as u16;
    for (path, n) in &written.pcap_files {
        let (_, recs) = read(path);
        assert_eq!(recs.len() as u64, *n);
        assert!(*n > 0);
        for r in &recs {
            let (t, _) = etherparse::TcpHeader::from_slice(&r.data[20..]).unwrap();
            let port = 20000 + g;
            assert!(t.source_port == port || t.destination_port == port);
        }
    }
}

#[test]
fn no_tracer_no_files() {
    let sc = load(&lossy(), &["simulation.duration=1s"]);
    let (_, written) = scenario::run_traced(&sc, 1, None, None).unwrap();
    assert!(written.pcap_files.is_empty());
}

// ---- event trace -----------------------------------------------------------------------

/// One parsed row of events.csv.
#[derive(Debug)]
struct Ev {
    t: f64,
    event: String,
    reason: String,
    link: String,
    flow: String,
    uid: u64,
    size: u32,
    ecn: String,
}

fn events(path: &Path) -> Vec<Ev> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), packetsim::trace::EVENT_COLUMNS);
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c.len(), 13, "{l}");
            Ev {
                t: c[0].parse().unwrap(),
                event: c[1].into(),
                reason: c[2].into(),
                link: c[3].into(),
                flow: c[4].into(),
                uid: c[5].parse().unwrap(),
                size: c[9].parse().unwrap(),
                ecn: c[12].into(),
            }
        })
        .collect()
}

/// An ECN TCP flow over a RED bottleneck (marks) with 1% wire loss (wire drops) and a small
/// limit (queue drops of non-ECT packets).
fn marked() -> packetsim::scenario::Scenario {
    load(
        &line_scenario("2Mbps", "20ms", 10, "app = \"bulk\"\ntcp = { ecn = true }"),
        &[
            "simulation.duration=10s",
            "links.bottleneck.loss=0.01",
            "links.bottleneck.queue={ kind = \"red\", red = { min_th = 3, max_th = 8, max_p = 0.2, limit = 12, ecn = \"standard\" } }",
        ],
    )
}

#[test]
fn event_rows_agree_with_every_counter_of_every_direction() {
    let sc = marked();
    let dir = tmp("events");
    let (o, written) = scenario::run_traced(&sc, 1, None, Some(&dir)).unwrap();
    let (path, n) = written.events_file.unwrap();
    let rows = events(&path);
    assert_eq!(rows.len() as u64, n);
    assert!(rows.windows(2).all(|w| w[0].t <= w[1].t), "sorted by time");
    let count = |link: &str, ev: &str, reason: &str| {
        rows.iter()
            .filter(|r| r.link == link && r.event == ev && r.reason == reason)
            .count() as u64
    };
    for e in &o.world.net.egresses {
        let q = &e.queue;
        let queue_drops: u64 = q.drops.iter().sum();
        assert_eq!(
            count(&e.name, "enqueue", ""),
            q.arrivals - queue_drops,
            "{}",
            e.name
        );
        assert_eq!(count(&e.name, "mark", ""), q.marks, "{}", e.name);
        assert_eq!(
            count(&e.name, "receive", ""),
            e.stats.delivered,
            "{}",
            e.name
        );
        assert_eq!(
            count(&e.name, "dequeue", ""),
            e.stats.transmitted,
            "{}",
            e.name
        );
        for r in packetsim::queue::DropReason::ALL {
            let expect = q.drops_for(r)
                + match r {
                    packetsim::queue::DropReason::Error => e.stats.lost_error,
                    packetsim::queue::DropReason::LinkDown => e.stats.lost_down,
                    _ => 0,
                };
            assert_eq!(count(&e.name, "drop", r.name()), expect, "{} {r:?}", e.name);
        }
    }
    let b = "bottleneck:r1->r2";
    assert!(count(b, "mark", "") > 0, "RED marks");
    assert!(count(b, "drop", "error") > 0, "wire losses");
    // A marked packet leaves CE: its later rows (dequeue, receive, next hops) say so.
    let marked: Vec<u64> = rows
        .iter()
        .filter(|r| r.event == "mark")
        .map(|r| r.uid)
        .collect();
    for r in rows.iter().filter(|r| r.link == b && r.event == "receive") {
        if marked.contains(&r.uid) {
            assert_eq!(r.ecn, "ce");
        }
    }
    // On the bottleneck, receive - dequeue = transmission (2 Mb/s) + propagation (20 ms).
    for r in rows.iter().filter(|r| r.link == b && r.event == "receive") {
        let d = rows
            .iter()
            .find(|x| x.link == b && x.event == "dequeue" && x.uid == r.uid)
            .unwrap();
        let expect = r.size as f64 * 8.0 / 2e6 + 0.020;
        assert!((r.t - d.t - expect).abs() < 1e-9, "{r:?} {d:?}");
        assert_eq!(r.flow, "f");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tracing_does_not_change_the_run() {
    let sc = marked();
    let plain = scenario::run(&sc, 4).unwrap();
    let dir = tmp("same");
    let (traced, _) = scenario::run_traced(&sc, 4, Some(&dir.join("p")), Some(&dir)).unwrap();
    assert_eq!(plain.summary.flows_csv(), traced.summary.flows_csv());
    assert_eq!(plain.summary.queues_csv(), traced.summary.queues_csv());
    assert_eq!(plain.info.events, traced.info.events);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_event_trace_keeps_to_the_window_and_the_flows() {
    let text = format!(
        "{}\n[flows.g]\nfrom = \"s\"\nto = \"d\"\napp = \"bulk\"\n\n[trace]\nflows = [\"g\"]\n\
         links = [\"bottleneck:a_to_b\"]\nfrom = \"2s\"\nto = \"3s\"\n",
        lossy()
    );
    let sc = load(&text, &["simulation.duration=4s"]);
    let dir = tmp("evwindow");
    let (_, written) = scenario::run_traced(&sc, 1, None, Some(&dir)).unwrap();
    let rows = events(&written.events_file.unwrap().0);
    assert!(!rows.is_empty());
    for r in &rows {
        assert!((2.0..3.0).contains(&r.t), "{r:?}");
        assert_eq!(r.flow, "g");
        assert_eq!(r.link, "bottleneck:r1->r2");
    }
    for ev in ["enqueue", "dequeue", "receive"] {
        assert!(rows.iter().any(|r| r.event == ev), "{ev}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
