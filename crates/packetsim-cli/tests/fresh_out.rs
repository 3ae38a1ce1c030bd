//! A run's `--out` folder holds one run's results, never a mix (issue 37 item 4): figures and
//! the report page drawn from a run join its output set, so `verify` checks them and the next
//! run into the folder removes them with the rest of the old set.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn packetsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .output()
        .expect("runs")
}

fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell.toml")
}

fn manifest(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("manifest.txt")).unwrap()
}

#[test]
fn figures_and_report_join_the_run_and_leave_with_it() {
    let dir = std::env::temp_dir().join(format!("packetsim-fresh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("run");
    let o = out.to_str().unwrap();
    let sc = scenario();
    let sc = sc.to_str().unwrap();
    ok(packetsim(&[
        "run",
        sc,
        "--quiet",
        "--out",
        o,
        "--set",
        "simulation.duration=\"3s\"",
    ]));
    let plotted = packetsim(&["plot", o, "--format", "svg"]);
    if !plotted.status.success() {
        // No TrueType font on this machine: plotting is not possible here.
        eprintln!("SKIPPED: {}", String::from_utf8_lossy(&plotted.stderr));
        return;
    }
    ok(packetsim(&["report", o]));
    // The derived files are part of the set now, and verify checks them.
    let m = manifest(&out);
    assert!(m.contains(" figures/cwnd.svg\n"), "{m}");
    assert!(m.contains(" index.html\n"), "{m}");
    assert!(m.contains(" summary.json\n"), "{m}");
    assert!(ok(packetsim(&["verify", o])).contains("complete"));
    std::fs::write(out.join("figures/cwnd.svg"), "<svg/>").unwrap();
    let v = packetsim(&["verify", o]);
    assert_eq!(v.status.code(), Some(1), "verify missed an edited figure");
    assert!(String::from_utf8_lossy(&v.stderr).contains("cwnd.svg"));
    // A new run into the folder: none of the old figures or page is left.
    ok(packetsim(&[
        "run",
        sc,
        "--quiet",
        "--out",
        o,
        "--set",
        "simulation.duration=\"2s\"",
    ]));
    assert!(!out.join("index.html").exists(), "a stale report page");
    assert!(!out.join("figures/cwnd.svg").exists(), "a stale figure");
    let m = manifest(&out);
    assert!(!m.contains("figures/") && !m.contains("index.html"), "{m}");
    assert!(ok(packetsim(&["verify", o])).contains("complete"));
    let _ = std::fs::remove_dir_all(&dir);
}
