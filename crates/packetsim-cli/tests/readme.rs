//! The README as a new user meets it: its shell blocks run as pasted, its layout table names
//! every folder and docs page that exists (and nothing that does not), and no file of the
//! repository points outside it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).expect("README.md")
}

/// The body of every fenced block of `lang` in `text` after the line `heading` (and before the
/// next heading of the same level), in order.
fn blocks_after(text: &str, heading: &str, lang: &str) -> Vec<String> {
    let level = heading.split(' ').next().unwrap();
    let mut in_section = false;
    let mut current: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        if current.is_none() && line.starts_with('#') {
            let this_level = line.split(' ').next().unwrap();
            if line == heading {
                in_section = true;
                continue;
            }
            if in_section && this_level.len() <= level.len() {
                break;
            }
        }
        if !in_section {
            continue;
        }
        match current.as_mut() {
            None if line == format!("```{lang}") => current = Some(String::new()),
            Some(_) if line == "```" => out.push(current.take().unwrap()),
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Runs `script` with bash in a scratch folder that looks like the top of a clone (its
/// `scenarios/` is the repository's), with this build's `packetsim` on the PATH. Lines that run
/// cargo are left out: the binary under test is the one cargo built for this test, and a build
/// inside a test would wait for the build lock the test itself holds.
fn run_as_pasted(name: &str, script: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("packetsim-readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(
        repo().join("scenarios").canonicalize().unwrap(),
        dir.join("scenarios"),
    )
    .unwrap();
    let body: String = script
        .lines()
        .filter(|l| !l.trim_start().starts_with("cargo "))
        .map(|l| format!("{l}\n"))
        .collect();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_packetsim")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // `set -e`: a pasted tour whose step fails would show the error and go on; here it stops.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\n{body}"))
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    (out.status.success(), log)
}

#[test]
fn readme_opens_with_what_packetsim_is_and_the_two_commands() {
    let text = readme();
    let head: Vec<&str> = text.lines().take(12).collect();
    assert_eq!(head[0], "# packetsim");
    assert!(
        head.iter().any(|l| l.contains("network simulator")),
        "the first lines do not say what packetsim is: {head:#?}"
    );
    // The first two code blocks, each one command alone: the main job, then the tests
    // (the same command `.ci/run` runs).
    let blocks: Vec<&str> = text
        .split("```sh\n")
        .skip(1)
        .take(2)
        .map(|b| b.split("```").next().unwrap().trim())
        .collect();
    assert_eq!(
        blocks,
        [
            "cargo run --release -p packetsim-cli -- reproduce all",
            "./test.sh"
        ]
    );
    let ci = std::fs::read_to_string(repo().join(".ci/run")).expect(".ci/run");
    assert_eq!(
        ci.lines().last(),
        Some("./test.sh"),
        "the CI runs the README's test command"
    );
}

#[test]
fn readme_tour_runs_as_pasted() {
    let text = readme();
    let tour = blocks_after(&text, "## A short tour", "sh");
    assert_eq!(tour.len(), 2, "the tour and the further examples");
    // The tour starts by building and putting the command on the PATH: no alias (an alias does
    // nothing in a script), and every command after that is the bare `packetsim`.
    assert!(tour[0].contains("cargo build --release -p packetsim-cli"));
    assert!(tour[0].contains("export PATH=\"$PWD/target/release:$PATH\""));
    assert!(!text.contains("alias packetsim"));
    let (ok, log) = run_as_pasted("tour", &tour[0]);
    assert!(ok, "the tour failed:\n{log}");
    // It did what it says: a run, its figures and page, a sweep with its figure.
    assert!(log.contains("wrote out/dumbbell"), "{log}");
    assert!(log.contains("wrote out/dumbbell/index.html"), "{log}");
    assert!(log.contains("wrote out/sweep/results.csv"), "{log}");
    assert!(log.contains("out/sweep: complete"), "{log}");
    let (ok, log) = run_as_pasted("more", &tour[1]);
    assert!(ok, "the further examples failed:\n{log}");
}

/// The layout table's first column: the paths it describes.
fn layout_paths(text: &str) -> Vec<String> {
    let section = text.split("## Layout").nth(1).expect("a Layout section");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l[3..].split('`').next().unwrap().to_string())
        .collect()
}

#[test]
fn readme_layout_names_every_folder_and_docs_page_and_only_those_that_exist() {
    let root = repo();
    let paths = layout_paths(&readme());
    for p in &paths {
        assert!(
            root.join(p).exists(),
            "the layout lists {p}, which does not exist"
        );
    }
    let listed = |p: &str| paths.iter().any(|q| q.trim_end_matches('/') == p);
    let mut want = Vec::new();
    for top in [
        "crates",
        "bench",
        "scenarios",
        "docs",
        "crates/packetsim/src",
    ] {
        for e in std::fs::read_dir(root.join(top)).unwrap() {
            let e = e.unwrap();
            let name = format!("{top}/{}", e.file_name().to_string_lossy());
            let is_dir = e.file_type().unwrap().is_dir();
            let wanted = match top {
                "docs" => true,
                "crates" => is_dir,
                "crates/packetsim/src" => is_dir,
                _ => false,
            };
            if wanted {
                want.push(name);
            }
        }
    }
    for top in [
        "scenarios",
        "bench",
        "bench/validate",
        "crates/packetsim/tests",
    ] {
        want.push(top.to_string());
    }
    for w in want {
        assert!(listed(&w), "the README's layout table does not list {w}");
    }
}

/// Every text file of the repository (what a clone has), skipping build output.
fn repo_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "target" || name == ".git" || name == "out" {
            continue;
        }
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            repo_files(&p, out);
        } else if ["md", "toml", "sh", "py", "txt", "rs", "tcl", "cc"]
            .iter()
            .any(|x| p.extension().is_some_and(|e| e == *x))
        {
            out.push(p);
        }
    }
}

#[test]
fn no_document_links_outside_the_repository() {
    let mut files = Vec::new();
    repo_files(&repo(), &mut files);
    assert!(files.len() > 20, "found only {files:?}");
    // Spelled in two parts so that this file does not match itself.
    let (outside, absolute) = (concat!("..", "/shared"), concat!("](", "/work/"));
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains(outside) && !line.contains(absolute),
                "{}:{}: a link outside the repository: {line}",
                f.display(),
                n + 1
            );
        }
    }
}

#[test]
fn every_study_has_its_page_and_docs_results_links_it() {
    let root = repo();
    for study in [
        "atm-tcp",
        "wireless-bs-buffer",
        "sctp-multihoming",
        "diffserv-ecn",
        "micromobility",
    ] {
        let page = root.join(format!("docs/studies/{study}.md"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(
            text.contains(&format!("packetsim reproduce {study}")),
            "{study}"
        );
        let results = std::fs::read_to_string(root.join("docs/results.md")).unwrap();
        assert!(
            results.contains(&format!("studies/{study}.md")),
            "docs/results.md does not link {study}'s page"
        );
    }
}
