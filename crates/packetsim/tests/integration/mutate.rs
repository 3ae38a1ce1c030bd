//! The mutator of the fuzz harnesses (issues 16 and 38), shared by `fuzz.rs` (mutants through
//! the library's loader, checks and builder) and packetsim-cli/tests/issue38.rs (mutants
//! through the `packetsim` command's `check` and `run`, the long campaign of bench/fuzz.sh).
//!
//! Mutation kinds, as a careful user breaking the tool would try them: delete, duplicate or
//! swap lines; truncate the file at any byte; put an extreme or wrong-typed value on a
//! `key = value` line (1ns, 1e308 s, 1e99 Gbps, 1e30 GiB, -1, 2^64, nan, a string, a table...);
//! misspell a key; insert an invalid UTF-8 byte or a TOML punctuation character; and issue
//! 38's type-aware ones: a value of the line's own type at and beyond the edges of its range,
//! a huge count or a special file under a table header.
//!
//! A mutant that loads is checked against the documented bounds and relations
//! ([`out_of_range`]): an accepted out-of-range value fails a harness like a panic does.

#![allow(dead_code)]

use packetsim::scenario;
use std::path::{Path, PathBuf};

/// splitmix64: a small seeded generator, enough to pick mutations reproducibly.
pub struct Mix(pub u64);
impl Mix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const VALUES: &[&str] = &[
    "\"1ns\"",
    "\"0s\"",
    "\"1e308s\"",
    "\"-5ms\"",
    "\"1e99 Gbps\"",
    "\"0bps\"",
    "\"1e30GiB\"",
    "\"0.1ns\"",
    "-1",
    "0",
    "1000000",
    "18446744073709551616",
    "1e999",
    "nan",
    "inf",
    "1.5",
    "\"\"",
    "\"abc\"",
    "true",
    "[]",
    "{}",
    "[1, \"a\"]",
    "{ kind = \"droptail\", limit = 0 }",
];

/// The first value of an accepted scenario outside its documented bounds or relations
/// (docs/scenario-format.md, "Bounds" and "Relations"): the loader must refuse these, so an
/// accepted one is a failure ("0 accepted out-of-range values", issue 16).
pub fn out_of_range(sc: &scenario::Scenario) -> Option<String> {
    use packetsim::units::{MAX_BYTES, MAX_DURATION_S, MAX_RATE_BPS};
    use packetsim_kernel::{Dur, Time};
    let dur_ok = |d: Dur| d.as_secs_f64() <= MAX_DURATION_S;
    let end = Time::ZERO + sc.simulation.duration;
    let mut bad = Vec::new();
    if sc.simulation.duration == Dur::ZERO || !dur_ok(sc.simulation.duration) {
        bad.push(format!("simulation.duration {:?}", sc.simulation.duration));
    }
    if sc
        .simulation
        .sample_interval
        .is_some_and(|i| i == Dur::ZERO || !dur_ok(i))
    {
        bad.push("simulation.sample_interval".to_owned());
    }
    for l in &sc.links {
        if l.rate.0 == 0 || l.rate.0 as f64 > MAX_RATE_BPS {
            bad.push(format!("links.{}.rate {}", l.name, l.rate.0));
        }
        if !dur_ok(l.delay) {
            bad.push(format!("links.{}.delay", l.name));
        }
        if !(0.0..=1.0).contains(&l.loss) || !(0.0..1.0).contains(&l.ber) {
            bad.push(format!("links.{}.loss/ber {} {}", l.name, l.loss, l.ber));
        }
        for q in std::iter::once(&l.queue).chain(&l.queue_ba) {
            if let scenario::QueueSpec::DropTail {
                limit: scenario::QueueLimit::Bytes(b),
                ..
            } = q
            {
                if *b as f64 > MAX_BYTES {
                    bad.push(format!("links.{}.queue limit {b}", l.name));
                }
            }
        }
        if l.outages
            .iter()
            .any(|&(from, to)| from >= end || to <= from)
        {
            bad.push(format!("links.{}.outages", l.name));
        }
        if l.rate_steps.iter().any(|s| s.at >= end) {
            bad.push(format!("links.{}.rate_steps", l.name));
        }
    }
    for t in &sc.flow_tables {
        let f = &t.first;
        let name = &t.table;
        if !(1..=scenario::MAX_FLOW_COUNT).contains(&t.count) {
            bad.push(format!("flows.{name}.count {}", t.count));
        }
        let last = t.copy(t.count - 1).start;
        if f.start >= end || last >= end || f.stop.is_some_and(|s| s <= last || s > end) {
            bad.push(format!("flows.{name} start/stop/stagger"));
        }
        if last + f.start_jitter >= f.stop.map_or(end, |s| s.min(end)) {
            bad.push(format!("flows.{name}.start_jitter"));
        }
        if f.dscp > 63 {
            bad.push(format!("flows.{name}.dscp"));
        }
        match &f.kind {
            scenario::FlowKind::Tcp { app, tcp } => {
                let ordered = tcp.rto_min <= tcp.rto_initial && tcp.rto_initial <= tcp.rto_max;
                if !ordered || !dur_ok(tcp.rto_max) {
                    bad.push(format!("flows.{name}.tcp rto_min/rto_initial/rto_max"));
                }
                if tcp.mss == 0 || tcp.mss > 65_000 {
                    bad.push(format!("flows.{name}.tcp.mss {}", tcp.mss));
                }
                if let scenario::App::File { bytes } = app {
                    if *bytes as f64 > MAX_BYTES {
                        bad.push(format!("flows.{name}.size {bytes}"));
                    }
                }
            }
            scenario::FlowKind::Cbr { rate, .. } => {
                if rate.0 == 0 || rate.0 as f64 > MAX_RATE_BPS {
                    bad.push(format!("flows.{name}.rate {}", rate.0));
                }
            }
            scenario::FlowKind::Sctp { .. } => {}
        }
    }
    (!bad.is_empty()).then(|| bad.join(", "))
}

/// Values of the same type as `value` (as written in a scenario) at the edges of its range
/// and beyond it (issue 38's type-aware mutator): a duration gets durations, a rate rates, a
/// byte count byte counts, a whole number counts up to 2^64, a number floats from 1e-300 to
/// 1e308, a string special files and paths out of the folder.
fn typed_values(value: &str) -> &'static [&'static str] {
    let v = value.trim();
    let unit = |u: &[&str]| {
        v.starts_with('"')
            && u.iter()
                .any(|u| v.trim_end_matches('"').ends_with(u) && v.len() > u.len() + 2)
            && v[1..2].bytes().all(|b| b.is_ascii_digit())
    };
    if unit(&["bps"]) {
        &[
            "\"0bps\"",
            "\"1bps\"",
            "\"0.5bps\"",
            "\"1.5bps\"",
            "\"10000Gbps\"",
            "\"10001Gbps\"",
            "\"1e-9Mbps\"",
            "\"18446744073709551615bps\"",
        ]
    } else if unit(&["ns", "us", "ms", "s", "min"]) {
        &[
            "\"0s\"",
            "\"1ns\"",
            "\"0.5ns\"",
            "\"1.5ns\"",
            "\"1e7s\"",
            "\"10000001s\"",
            "\"166667min\"",
            "\"18446744073709551615ns\"",
            "\"1e-10s\"",
        ]
    } else if unit(&["B", "KB", "MB", "GB", "KiB", "MiB", "GiB"]) {
        &[
            "\"0B\"",
            "\"1B\"",
            "\"1048576GiB\"",
            "\"1048577GiB\"",
            "\"1.5B\"",
            "\"4GiB\"",
            "\"18446744073709551615B\"",
        ]
    } else if v.starts_with('"') {
        &[
            "\"fifo.cdf\"",
            "\"dir.cdf\"",
            "\"/dev/zero\"",
            "\"/dev/urandom\"",
            "\"/etc/passwd\"",
            "\"../../../../etc/passwd\"",
            "\"missing.cdf\"",
            "\"websearch.cdf\"",
            "\"\"",
        ]
    } else if v.bytes().all(|b| b.is_ascii_digit()) && !v.is_empty() {
        &[
            "0",
            "1",
            "255",
            "65535",
            "1000000",
            "1000001",
            "4294967295",
            "4294967296",
            "9007199254740993",
            "18446744073709551615",
            "18446744073709551616",
            "-1",
        ]
    } else if v.parse::<f64>().is_ok() {
        &[
            "0.0",
            "-0.0",
            "1e-300",
            "1.0",
            "1.0000001",
            "33000.0",
            "1e9",
            "1e308",
            "-1e308",
            "4294967295.0",
        ]
    } else {
        &["[]", "{}", "true", "\"x\""]
    }
}

/// Huge counts of the keys that size allocations (issue 38), set on their own table.
const HUGE: &[&str] = &[
    "count = 1000000",
    "handoffs = 4294967295",
    "switch_buffer = 4294967295",
    "arrival_rate = 1e9",
    "size_cdf = \"fifo.cdf\"",
    "limit = 4294967295",
    "sample_interval = \"1ns\"",
];

/// One mutant of `text` (bytes: it may not be UTF-8).
pub fn mutate(text: &str, rng: &mut Mix) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let n = lines.len();
    match rng.below(11) {
        8 | 9 => {
            // Type-aware: a value of the line's own type at or beyond its range's edges.
            let kv: Vec<usize> = (0..n).filter(|&i| lines[i].contains(" = ")).collect();
            if !kv.is_empty() {
                let i = kv[rng.below(kv.len())];
                let (key, value) = lines[i].split_once(" = ").unwrap_or_default();
                let value = value.split(" #").next().unwrap_or("");
                let vals = typed_values(value);
                lines[i] = format!("{key} = {}", vals[rng.below(vals.len())]);
            }
        }
        10 => {
            // A huge count or a special file under a table header.
            let tables: Vec<usize> = (0..n).filter(|&i| lines[i].starts_with('[')).collect();
            if !tables.is_empty() {
                let i = tables[rng.below(tables.len())];
                lines.insert(i + 1, HUGE[rng.below(HUGE.len())].to_owned());
            }
        }
        0 => {
            lines.remove(rng.below(n));
        }
        1 => {
            let i = rng.below(n);
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let (a, b) = (rng.below(n), rng.below(n));
            lines.swap(a, b);
        }
        3 => {
            let mut b = text.as_bytes().to_vec();
            b.truncate(rng.below(b.len() + 1));
            return b;
        }
        4 | 5 => {
            let kv: Vec<usize> = (0..n).filter(|&i| lines[i].contains(" = ")).collect();
            if !kv.is_empty() {
                let i = kv[rng.below(kv.len())];
                let key = lines[i].split(" = ").next().unwrap_or("").to_owned();
                lines[i] = format!("{key} = {}", VALUES[rng.below(VALUES.len())]);
            }
        }
        6 => {
            let kv: Vec<usize> = (0..n).filter(|&i| lines[i].contains(" = ")).collect();
            if !kv.is_empty() {
                let i = kv[rng.below(kv.len())];
                lines[i] = lines[i].replacen(" = ", "x = ", 1);
            }
        }
        _ => {
            let mut b = text.as_bytes().to_vec();
            let at = rng.below(b.len() + 1);
            let junk = b"\xff\xc3[]={}\".,#\n\t0";
            b.insert(at, junk[rng.below(junk.len())]);
            return b;
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The scenarios mutants are made from: every `.toml` of `scenarios/` and
/// `scenarios/workloads/` as (file name, text), sorted by name.
pub fn seeds(dir: &Path) -> Vec<(String, String)> {
    let mut seeds: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("workloads")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    seeds.sort();
    seeds
}

/// A fresh folder `home` for mutants, holding the files they may name: a FIFO
/// (`fifo.cdf`), a folder (`dir.cdf`) and the workloads' CDFs (issue 38: special files
/// never block or get read).
pub fn mutant_home(dir: &Path, home: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join("dir.cdf")).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(home.join("fifo.cdf"))
        .status()
        .unwrap()
        .success());
    for cdf in ["websearch.cdf", "datamining.cdf"] {
        std::fs::copy(dir.join("workloads").join(cdf), home.join(cdf)).unwrap();
    }
    home
}
