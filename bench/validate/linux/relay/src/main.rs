//! delay-relay: the propagation delay of the Linux testbed (bench/validate/linux), made in user
//! space because this kernel has no netem.
//!
//! The router namespace sends every forwarded packet into a TUN device (policy routing by
//! input interface, see testbed.sh). This program reads each packet, holds it for a fixed
//! one-way delay measured from the moment it was read, and writes it back into the same TUN
//! device, from where the kernel routes it on. Packets leave in arrival order (the delay is the
//! same for all, so a FIFO is enough). Optionally, packets whose IPv4 destination lies in a
//! given prefix are dropped with a fixed probability drawn from a seeded generator, before the
//! delay (like packetsim's `loss_position = "before_queue"`).
//!
//! It stops by itself after `--duration` (or on SIGINT/SIGTERM) and writes what it measured:
//! packets and bytes in, forwarded and dropped, and how late each packet left against its
//! deadline (the relay's own delay error), as one JSON object.

use std::fs::File;
use std::io::Write;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;

/// `_IOW('T', 202, int)` from linux/if_tun.h.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// Lateness histogram: 1 us buckets up to this many microseconds, then one overflow bucket.
const HIST_US: usize = 50_000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

struct Args {
    dev: String,
    delay: Duration,
    loss: f64,
    loss_dst: Option<(u32, u32)>, // (network, mask), host byte order
    seed: u64,
    duration: Duration,
    stats: Option<String>,
    fifo_priority: Option<i32>,
}

fn usage() -> ! {
    eprintln!(
        "usage: delay-relay --dev NAME --delay TIME [--loss P --loss-dst A.B.C.D/LEN] [--seed N]\n\
         \x20                  --duration TIME [--stats FILE] [--fifo-priority 1..99]\n\
         TIME: an integer with unit ns, us, ms or s (e.g. 25ms)"
    );
    std::process::exit(2)
}

fn fail(msg: String) -> ! {
    eprintln!("delay-relay: {msg}");
    std::process::exit(2)
}

fn parse_time(key: &str, s: &str) -> Duration {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .unwrap_or_else(|_| fail(format!("{key}: expected an integer with a unit (ns, us, ms, s), got {s:?}")));
    match unit {
        "ns" => Duration::from_nanos(n),
        "us" => Duration::from_micros(n),
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        _ => fail(format!("{key}: unit must be ns, us, ms or s, got {s:?}")),
    }
}

fn parse_prefix(s: &str) -> (u32, u32) {
    let (addr, len) = s
        .split_once('/')
        .unwrap_or_else(|| fail(format!("--loss-dst: expected A.B.C.D/LEN, got {s:?}")));
    let addr: std::net::Ipv4Addr = addr
        .parse()
        .unwrap_or_else(|_| fail(format!("--loss-dst: bad IPv4 address in {s:?}")));
    let len: u32 = match len.parse() {
        Ok(l) if l <= 32 => l,
        _ => fail(format!("--loss-dst: prefix length must be 0..=32, got {s:?}")),
    };
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    (u32::from(addr) & mask, mask)
}

fn parse_args() -> Args {
    let mut a = Args {
        dev: String::new(),
        delay: Duration::ZERO,
        loss: 0.0,
        loss_dst: None,
        seed: 1,
        duration: Duration::ZERO,
        stats: None,
        fifo_priority: None,
    };
    let mut have_delay = false;
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| fail(format!("{k}: missing value")));
        match k.as_str() {
            "--dev" => a.dev = val(),
            "--delay" => {
                a.delay = parse_time("--delay", &val());
                have_delay = true;
            }
            "--loss" => {
                let v = val();
                a.loss = match v.parse::<f64>() {
                    Ok(p) if (0.0..=1.0).contains(&p) => p,
                    _ => fail(format!("--loss: expected a probability in [0, 1], got {v:?}")),
                };
            }
            "--loss-dst" => a.loss_dst = Some(parse_prefix(&val())),
            "--seed" => {
                let v = val();
                a.seed = v
                    .parse()
                    .unwrap_or_else(|_| fail(format!("--seed: expected an unsigned integer, got {v:?}")));
            }
            "--duration" => a.duration = parse_time("--duration", &val()),
            "--stats" => a.stats = Some(val()),
            "--fifo-priority" => {
                let v = val();
                a.fifo_priority = match v.parse::<i32>() {
                    Ok(p) if (1..=99).contains(&p) => Some(p),
                    _ => fail(format!("--fifo-priority: expected 1..=99, got {v:?}")),
                };
            }
            "-h" | "--help" => usage(),
            _ => fail(format!("unknown argument {k:?} (try --help)")),
        }
    }
    if a.dev.is_empty() || a.dev.len() >= libc::IFNAMSIZ {
        fail("--dev: required, a TUN device name shorter than 16 bytes".into());
    }
    if !have_delay {
        fail("--delay: required".into());
    }
    if a.duration.is_zero() {
        fail("--duration: required and > 0 (the relay always stops by itself)".into());
    }
    if a.loss > 0.0 && a.loss_dst.is_none() {
        fail("--loss needs --loss-dst: the prefix whose packets may be dropped".into());
    }
    a
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn sleep_until_ns(t: u64) {
    let ts = libc::timespec { tv_sec: (t / 1_000_000_000) as libc::time_t, tv_nsec: (t % 1_000_000_000) as libc::c_long };
    loop {
        // SAFETY: ts is a valid timespec; the remaining-time pointer may be null with TIMER_ABSTIME.
        let rc = unsafe {
            libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut())
        };
        if rc != libc::EINTR {
            return;
        }
    }
}

fn open_tun(name: &str) -> RawFd {
    let path = c"/dev/net/tun";
    // SAFETY: path is a NUL-terminated string.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        fail(format!("open /dev/net/tun: {}", std::io::Error::last_os_error()));
    }
    let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: req is a properly laid out struct ifreq (name, then the flags member of the union).
    if unsafe { libc::ioctl(fd, TUNSETIFF as _, &mut req) } < 0 {
        fail(format!("TUNSETIFF {name}: {}", std::io::Error::last_os_error()));
    }
    fd
}

/// Per-thread timer slack: the default 50 us would add up to 50 us to every sleep.
fn tight_timers(fifo_priority: Option<i32>) {
    // SAFETY: plain prctl/sched calls on the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        if let Some(p) = fifo_priority {
            let sp = libc::sched_param { sched_priority: p };
            if libc::sched_setscheduler(0, libc::SCHED_FIFO, &sp) != 0 {
                eprintln!("delay-relay: SCHED_FIFO not granted ({}), running at normal priority",
                    std::io::Error::last_os_error());
            }
        }
    }
}

#[derive(Default)]
struct Counters {
    pkts_in: AtomicU64,
    bytes_in: AtomicU64,
    dropped: AtomicU64,
    forwarded: AtomicU64,
    bytes_out: AtomicU64,
    write_errors: AtomicU64,
}

struct Lateness {
    hist: Vec<u64>, // HIST_US buckets of 1 us + overflow
    sum_ns: u128,
    max_ns: u64,
    n: u64,
}

impl Lateness {
    fn record(&mut self, late_ns: u64) {
        let b = ((late_ns / 1000) as usize).min(HIST_US);
        self.hist[b] += 1;
        self.sum_ns += late_ns as u128;
        self.max_ns = self.max_ns.max(late_ns);
        self.n += 1;
    }
    /// Upper edge (us) of the bucket holding quantile q.
    fn quantile_us(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let target = ((self.n as f64) * q).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, c) in self.hist.iter().enumerate() {
            acc += c;
            if acc >= target {
                return if i == HIST_US { self.max_ns as f64 / 1000.0 } else { (i + 1) as f64 };
            }
        }
        self.max_ns as f64 / 1000.0
    }
}

fn dst_in(pkt: &[u8], (net, mask): (u32, u32)) -> bool {
    pkt.len() >= 20 && pkt[0] >> 4 == 4 && (u32::from_be_bytes([pkt[16], pkt[17], pkt[18], pkt[19]]) & mask) == net
}

fn main() {
    let args = parse_args();
    // Block SIGINT/SIGTERM in every thread; the main thread waits for them (or the end).
    // SAFETY: sigset manipulation on a local set, then masking the calling thread.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };

    let rfd = open_tun(&args.dev);
    // SAFETY: rfd is an open descriptor.
    let wfd = unsafe { libc::dup(rfd) };
    if wfd < 0 {
        fail(format!("dup: {}", std::io::Error::last_os_error()));
    }
    let counters = Arc::new(Counters::default());
    let lateness = Arc::new(Mutex::new(Lateness { hist: vec![0; HIST_US + 1], sum_ns: 0, max_ns: 0, n: 0 }));
    let delay_ns = args.delay.as_nanos() as u64;
    let (tx, rx) = mpsc::channel::<(u64, Vec<u8>)>();
    let start = now_ns();

    // Reader: stamp each packet, maybe drop it, queue it with its deadline.
    {
        let c = Arc::clone(&counters);
        let (loss, loss_dst, seed, prio) = (args.loss, args.loss_dst, args.seed, args.fifo_priority);
        std::thread::spawn(move || {
            tight_timers(prio);
            let mut rng = XorShiftRng::seed_from_u64(seed);
            let mut buf = vec![0u8; 65536];
            loop {
                // SAFETY: buf is writable for its length.
                let n = unsafe { libc::read(rfd, buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    continue;
                }
                let t = now_ns();
                let pkt = &buf[..n as usize];
                c.pkts_in.fetch_add(1, Ordering::Relaxed);
                c.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
                if let Some(prefix) = loss_dst {
                    if loss > 0.0 && dst_in(pkt, prefix) {
                        // One draw per candidate packet: the same seed gives the same loss
                        // pattern over the sequence of packets sent to the prefix.
                        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                        if u < loss {
                            c.dropped.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                    }
                }
                if tx.send((t + delay_ns, pkt.to_vec())).is_err() {
                    return;
                }
            }
        });
    }
    // Writer: release each packet at its deadline.
    {
        let c = Arc::clone(&counters);
        let lat = Arc::clone(&lateness);
        let prio = args.fifo_priority;
        std::thread::spawn(move || {
            tight_timers(prio);
            while let Ok((deadline, pkt)) = rx.recv() {
                if now_ns() < deadline {
                    sleep_until_ns(deadline);
                }
                let late = now_ns().saturating_sub(deadline);
                // SAFETY: pkt is a readable buffer of its length.
                let n = unsafe { libc::write(wfd, pkt.as_ptr().cast(), pkt.len()) };
                if n < 0 {
                    c.write_errors.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                c.forwarded.fetch_add(1, Ordering::Relaxed);
                c.bytes_out.fetch_add(n as u64, Ordering::Relaxed);
                lat.lock().unwrap().record(late);
            }
        });
    }

    let ts = libc::timespec {
        tv_sec: args.duration.as_secs() as libc::time_t,
        tv_nsec: args.duration.subsec_nanos() as libc::c_long,
    };
    loop {
        // SAFETY: set and ts are valid; the siginfo pointer may be null.
        let r = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
        if r >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    let elapsed = (now_ns() - start) as f64 / 1e9;
    // CPU the relay used (both threads), to judge its share of the shared machine.
    // SAFETY: ru is a valid, writable rusage.
    let (cpu_user, cpu_sys) = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        (t(ru.ru_utime), t(ru.ru_stime))
    };
    let l = lateness.lock().unwrap();
    let c = &counters;
    let json = format!(
        "{{\"dev\":\"{}\",\"delay_us\":{},\"loss\":{},\"seed\":{},\"elapsed_s\":{:.3},\
         \"pkts_in\":{},\"bytes_in\":{},\"dropped\":{},\"forwarded\":{},\"bytes_out\":{},\"write_errors\":{},\
         \"cpu_user_s\":{:.3},\"cpu_sys_s\":{:.3},\"late_mean_us\":{:.2},\"late_p50_us\":{},\"late_p90_us\":{},\"late_p99_us\":{},\"late_p999_us\":{},\"late_max_us\":{:.1}}}\n",
        args.dev,
        delay_ns / 1000,
        args.loss,
        args.seed,
        elapsed,
        c.pkts_in.load(Ordering::Relaxed),
        c.bytes_in.load(Ordering::Relaxed),
        c.dropped.load(Ordering::Relaxed),
        c.forwarded.load(Ordering::Relaxed),
        c.bytes_out.load(Ordering::Relaxed),
        c.write_errors.load(Ordering::Relaxed),
        cpu_user,
        cpu_sys,
        if l.n > 0 { l.sum_ns as f64 / l.n as f64 / 1000.0 } else { 0.0 },
        l.quantile_us(0.5),
        l.quantile_us(0.9),
        l.quantile_us(0.99),
        l.quantile_us(0.999),
        l.max_ns as f64 / 1000.0,
    );
    match &args.stats {
        Some(p) => {
            let mut f = File::create(p).unwrap_or_else(|e| fail(format!("--stats {p}: {e}")));
            f.write_all(json.as_bytes()).unwrap_or_else(|e| fail(format!("--stats {p}: {e}")));
        }
        None => print!("{json}"),
    }
    std::process::exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipv4_to(dst: [u8; 4]) -> Vec<u8> {
        let mut p = vec![0u8; 40];
        p[0] = 0x45;
        p[16..20].copy_from_slice(&dst);
        p
    }

    #[test]
    fn prefix_match_uses_the_destination_address_only() {
        let pre = parse_prefix("10.201.2.0/24");
        assert_eq!(pre, (0x0ac9_0200, 0xffff_ff00));
        assert!(dst_in(&ipv4_to([10, 201, 2, 2]), pre));
        assert!(!dst_in(&ipv4_to([10, 201, 1, 1]), pre));
        // IPv6 and runts are never candidates for loss.
        let mut v6 = ipv4_to([10, 201, 2, 2]);
        v6[0] = 0x60;
        assert!(!dst_in(&v6, pre));
        assert!(!dst_in(&[0x45, 0, 0], pre));
        assert_eq!(parse_prefix("0.0.0.0/0"), (0, 0));
    }

    #[test]
    fn times_take_an_explicit_unit() {
        assert_eq!(parse_time("--delay", "25ms"), Duration::from_millis(25));
        assert_eq!(parse_time("--delay", "50000us"), Duration::from_millis(50));
        assert_eq!(parse_time("--delay", "3s"), Duration::from_secs(3));
    }

    #[test]
    fn loss_draws_are_seeded_and_near_their_probability() {
        // The same seed gives the same sequence of decisions (reproducible loss patterns).
        let draw = |seed| {
            let mut r = XorShiftRng::seed_from_u64(seed);
            (0..100_000).map(|_| ((r.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < 0.01).collect::<Vec<_>>()
        };
        let a = draw(7);
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        let n = a.iter().filter(|&&x| x).count();
        // Binomial(100000, 0.01): mean 1000, sd about 31.5; 5 sd either side.
        assert!((843..=1157).contains(&n), "{n} losses in 100000 draws at p = 0.01");
    }

    #[test]
    fn lateness_quantiles_come_from_the_histogram() {
        let mut l = Lateness { hist: vec![0; HIST_US + 1], sum_ns: 0, max_ns: 0, n: 0 };
        for us in 0..100u64 {
            l.record(us * 1000 + 500);
        }
        assert_eq!(l.quantile_us(0.5), 50.0);
        assert_eq!(l.quantile_us(0.99), 99.0);
        l.record(80_000_000); // 80 ms: past the histogram, reported as the maximum
        assert_eq!(l.quantile_us(1.0), 80_000.0);
    }
}
