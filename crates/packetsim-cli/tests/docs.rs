//! docs/scenario-format.md's "Errors" section quotes the messages `packetsim check` gives for
//! mistakes made in the page's own complete example: this test makes each mistake, runs the
//! command, and requires the page to quote exactly what it printed (so line numbers cannot go
//! stale when the example grows).

use std::path::{Path, PathBuf};
use std::process::Command;

fn page() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario-format.md");
    std::fs::read_to_string(p).expect("docs/scenario-format.md")
}

/// The fenced blocks of `lang` after `heading`, up to the next `## ` heading.
fn blocks(text: &str, heading: &str, lang: &str) -> Vec<String> {
    let section = text.split(&format!("\n{heading}\n")).nth(1).expect(heading);
    let section = section.split("\n## ").next().unwrap();
    let mut out = Vec::new();
    let mut rest = section;
    let open = format!("```{lang}\n");
    while let Some(i) = rest.find(&open) {
        let body = &rest[i + open.len()..];
        let end = body.find("\n```").expect("a closed block");
        out.push(body[..end + 1].to_string());
        rest = &body[end..];
    }
    out
}

/// The 1-based number of the first line at or after line `from` that starts with `prefix`.
fn line_of(lines: &[String], from: usize, prefix: &str) -> usize {
    lines[from - 1..]
        .iter()
        .position(|l| l.starts_with(prefix))
        .map(|i| i + from)
        .unwrap_or_else(|| panic!("no line {prefix:?} after line {from}"))
}

/// Runs `packetsim check dumbbell.toml [--set ...]` on `bytes` and returns its one error line.
fn check(dir: &Path, bytes: &[u8], set: Option<&str>) -> String {
    std::fs::write(dir.join("dumbbell.toml"), bytes).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_packetsim"));
    cmd.current_dir(dir).arg("check").arg("dumbbell.toml");
    if let Some(s) = set {
        cmd.arg("--set").arg(s);
    }
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "accepted: {set:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    err.trim_end()
        .strip_prefix("error: ")
        .unwrap_or_else(|| panic!("not an error line: {err}"))
        .to_string()
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("packetsim-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn scenario_format_error_examples_are_what_check_prints() {
    let text = page();
    let example = blocks(&text, "## A complete example", "toml")
        .into_iter()
        .next()
        .expect("the complete example");
    let lines: Vec<String> = example.lines().map(str::to_string).collect();
    let dir = scratch();
    // The example itself is valid.
    std::fs::write(dir.join("ok.toml"), &example).unwrap();
    let ok = Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .current_dir(&dir)
        .args(["check", "ok.toml"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let with = |edit: &dyn Fn(&mut Vec<String>)| -> Vec<u8> {
        let mut l = lines.clone();
        edit(&mut l);
        (l.join("\n") + "\n").into_bytes()
    };
    let bottleneck = line_of(&lines, 1, "[links.bottleneck]");
    let rate = line_of(&lines, bottleneck, "rate =");
    let delay = line_of(&lines, bottleneck, "delay =");
    let ftp = line_of(&lines, 1, "[flows.ftp]");
    let ftp_to = line_of(&lines, ftp, "to =");
    let video = line_of(&lines, 1, "[flows.video]");
    let video_to = line_of(&lines, video, "to =");
    let seed = line_of(&lines, 1, "seed =");
    let access1 = line_of(&lines, 1, "[links.access1]");
    let access1_rate = line_of(&lines, access1, "rate =");
    let first_link = line_of(&lines, 1, "[links.");

    let mut first = Vec::new();
    first.push(check(
        &dir,
        &with(&|l| l[rate - 1] = "rate = \"10 Mbs\"".into()),
        None,
    ));
    first.push(check(
        &dir,
        &with(&|l| l.insert(delay, "jitter = \"5ms\"".into())),
        None,
    ));
    first.push(check(&dir, &with(&|l| l[delay - 1] = String::new()), None));
    first.push(check(
        &dir,
        &with(&|l| l[ftp_to - 1] = "to = \"d9\"".into()),
        None,
    ));
    first.push(check(
        &dir,
        &with(&|l| l.insert(video_to, "tcp = { variant = \"reno\" }".into())),
        None,
    ));
    first.push(check(
        &dir,
        example.as_bytes(),
        Some("links.bottleneck.loss=2"),
    ));

    let mut second = Vec::new();
    second.push(check(
        &dir,
        &with(&|l| l[seed - 1] = l[seed - 1].replacen("= 1 ", "= 99999999999999999999 ", 1)),
        None,
    ));
    let mut bad_byte = with(&|_| {});
    let offset = lines[..access1_rate - 1]
        .iter()
        .map(|l| l.len() + 1)
        .sum::<usize>()
        + "rate = \"".len();
    bad_byte[offset] = 0xFF;
    second.push(check(&dir, &bad_byte, None));
    second.push(
        check(
            &dir,
            &with(&|l| {
                l[ftp_to - 1] = "to = \"d9\"".into();
                l.insert(first_link - 1, "[nodes.d9]".into());
            }),
            None,
        )
        .to_string(),
    );

    let quoted = blocks(&text, "## Errors", "text");
    let want = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    assert_eq!(
        quoted.first().map(String::as_str),
        Some(want(&first).as_str()),
        "docs/scenario-format.md \"Errors\": the first block should read\n{}",
        want(&first)
    );
    assert_eq!(
        quoted.get(1).map(String::as_str),
        Some(want(&second).as_str()),
        "docs/scenario-format.md \"Errors\": the second block should read\n{}",
        want(&second)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
