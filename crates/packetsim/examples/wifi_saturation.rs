//! A saturated 802.11 channel (issue 34, item 6): N stations each always holding a frame for
//! an access point (station 0), basic access, 1000-byte payloads, for the events per
//! wall-second of the channel model.
//!
//!     cargo run --release -p packetsim --example wifi_saturation -- N SECONDS RATE_MBPS
//!
//! Prints `stations seconds rate_mbps events wall_s events_per_s throughput_bps frames
//! collided`. The throughput is payload delivered to the access point per simulated second.

use packetsim::wifi::{Channel, ChannelConfig, DcfConfig, Msdu, PhyConfig, Sta};
use packetsim_kernel::{Rate, Time};

fn arg(args: &[String], i: usize, default: u64) -> u64 {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("wifi_saturation: argument {i}: expected a whole number; got {s:?}");
            eprintln!("usage: wifi_saturation N SECONDS RATE_MBPS");
            std::process::exit(2)
        }),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, 1, 20);
    let secs = arg(&args, 2, 60);
    let rate = arg(&args, 3, 11);
    if n == 0 || n >= u16::MAX as u64 || secs == 0 || !PhyConfig::is_dsss_rate(Rate::mbps(rate)) {
        eprintln!("wifi_saturation: expected 1 <= N < 65535, SECONDS > 0, RATE_MBPS 1, 2 or 11");
        std::process::exit(2)
    }
    let cfg = ChannelConfig {
        dcf: DcfConfig {
            phy: PhyConfig {
                data_rate: Rate::mbps(rate),
                ..PhyConfig::default()
            },
            ..DcfConfig::default()
        },
        ..ChannelConfig::default()
    };
    let mut ch = Channel::new(n as u16 + 1, cfg, 1);
    ch.keep_log(false);
    for s in 1..=n as u16 {
        ch.saturate(
            Sta(s),
            Msdu {
                id: 0,
                dst: Sta(0),
                bytes: 1000,
            },
        );
    }
    let t0 = std::time::Instant::now();
    ch.run_until(Time::from_millis(secs * 1000));
    let wall = t0.elapsed().as_secs_f64();
    let st = ch.stats();
    let got = ch.mac(Sta(0)).stats().delivered;
    println!(
        "{n} {secs} {rate} {} {wall:.3} {:.0} {:.0} {} {}",
        st.events,
        st.events as f64 / wall,
        got as f64 * 8000.0 / secs as f64,
        st.frames,
        st.collided
    );
}
