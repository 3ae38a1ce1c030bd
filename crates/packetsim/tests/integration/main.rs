//! packetsim's integration tests: whole scenarios through the library, one module per topic.

mod aqm;
mod atm;
mod behaviour;
mod conservation;
mod datacentre;
mod determinism;
mod diffserv;
mod fuzz;
mod monitor;
mod mutate;
mod routing;
mod scenarios;
mod sctp;
mod seams;
mod series;
mod trace;
mod vegas;

use packetsim::scenario::{self, Override, Scenario};

/// Loads scenario text with overrides given as `path=value` strings.
pub fn load(text: &str, sets: &[&str]) -> Scenario {
    let ovs: Vec<Override> = sets.iter().map(|s| s.parse().expect("override")).collect();
    scenario::load_str(text, "test.toml", &ovs).unwrap_or_else(|e| panic!("{e}"))
}

/// The repository's scenarios folder.
pub fn scenarios_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// A line s - r1 - r2 - d with a bottleneck r1-r2 of `rate` and `delay`, one flow `f` from s to d.
pub fn line_scenario(rate: &str, delay: &str, queue: u32, flow: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"

[nodes.s]
[nodes.r1]
[nodes.r2]
[nodes.d]

[links.in]
a = "s"
b = "r1"
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = 1000 }}

[links.bottleneck]
a = "r1"
b = "r2"
rate = "{rate}"
delay = "{delay}"
queue = {{ kind = "droptail", limit = {queue} }}

[links.out]
a = "r2"
b = "d"
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = 1000 }}

[flows.f]
from = "s"
to = "d"
{flow}
"#
    )
}
