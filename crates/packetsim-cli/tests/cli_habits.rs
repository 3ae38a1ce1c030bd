//! Shell habits of issue 37: `packetsim completions SHELL`, `packetsim man`, and the
//! "did you mean" hint for a misspelt key, all through the real binary.

use std::process::{Command, Output};

fn packetsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout_of(args: &[&str]) -> String {
    let out = packetsim(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn bash_completion_knows_the_subcommands_and_their_options() {
    let s = stdout_of(&["completions", "bash"]);
    assert!(s.contains("complete -F _packetsim"), "{s}");
    assert!(s.contains("reproduce"), "{s}");
    assert!(s.contains("--seed"), "{s}");
    assert!(s.contains("sweep"), "{s}");
}

#[test]
fn zsh_and_fish_completions_are_printed() {
    let z = stdout_of(&["completions", "zsh"]);
    assert!(z.starts_with("#compdef packetsim"), "{z}");
    assert!(z.contains("reproduce"), "{z}");
    let f = stdout_of(&["completions", "fish"]);
    assert!(f.contains("complete -c packetsim"), "{f}");
    assert!(f.contains("-l seed"), "{f}");
}

#[test]
fn an_unknown_shell_is_refused() {
    let out = packetsim(&["completions", "tcsh"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
    assert!(err.contains("bash"), "{err}");
}

#[test]
fn man_page_is_roff_with_every_subcommand() {
    let s = stdout_of(&["man"]);
    assert!(s.contains(".TH packetsim 1"), "{s}");
    assert!(s.contains(".SH NAME"), "{s}");
    for sub in [
        "check",
        "run",
        "sweep",
        "reproduce",
        "verify",
        "report",
        "completions",
    ] {
        assert!(
            s.contains(&format!("packetsim\\-{sub}(1)")),
            "{sub} missing in:\n{s}"
        );
    }
}

#[test]
fn man_out_writes_one_page_per_command() {
    let dir = std::env::temp_dir().join(format!("packetsim-cli-{}-man", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    stdout_of(&["man", "--out", d]);
    let run = std::fs::read_to_string(dir.join("packetsim-run.1")).expect("packetsim-run.1");
    assert!(run.contains(".TH packetsim-run 1"), "{run}");
    assert!(run.contains("\\-\\-seed"), "{run}");
    assert!(dir.join("packetsim.1").is_file());
    assert!(dir.join("packetsim-reproduce.1").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_misspelt_key_names_file_line_key_and_a_suggestion() {
    let dir = std::env::temp_dir().join(format!("packetsim-cli-{}-dym", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("s.toml");
    std::fs::write(
        &f,
        "[simulation]\nduration = \"2s\"\n\n[nodes.a]\n[nodes.b]\n\n[links.ab]\na = \"a\"\n\
         b = \"b\"\nrate = \"10Mbps\"\ndealy = \"5ms\"\n\n[flows.f]\nfrom = \"a\"\nto = \"b\"\n",
    )
    .unwrap();
    let out = packetsim(&["check", f.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!(
        "error: {}:11: links.ab.dealy: unknown key `dealy`; ",
        f.display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(
        err.trim_end().ends_with("`handoff`; did you mean `delay`?"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
