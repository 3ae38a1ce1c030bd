//! What the command's end-to-end tests share: a fresh scratch folder and the smallest valid
//! scenario (each test file is its own crate and includes this module with `mod common;`).

use std::path::PathBuf;

/// A fresh, empty folder under the system's temporary folder, named by the test file's
/// `prefix`, the process and `name`.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packetsim-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The smallest valid scenario: two nodes, one link, one file transfer, 2 s.
pub const GOOD: &str = r#"[simulation]
duration = "2s"

[nodes.a]
[nodes.b]

[links.ab]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[flows.f]
from = "a"
to = "b"
app = "file"
size = "100KB"
"#;
