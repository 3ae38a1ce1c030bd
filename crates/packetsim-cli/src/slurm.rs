//! `packetsim sweep ... --emit slurm`: job scripts that run a sweep as a Slurm array (one task
//! per shard) and merge the shards in a job that depends on the whole array.
//!
//! Written into `OUT/slurm/`:
//! - `sweep.sbatch`: `#SBATCH --array=0-(N-1)`; task I runs this very sweep with
//!   `--shard I/N --out OUT/shards/I` and `--jobs` = the task's CPUs.
//! - `merge.sbatch`: `packetsim sweep merge OUT OUT/shards/0 ... OUT/shards/(N-1)`.
//! - `submit.sh`: submits the array, then the merge with `--dependency=afterok:ARRAY_ID`.
//!
//! Every path is absolute and every argument shell-quoted, so the scripts run from any
//! directory on any node that sees the same file system. The base seed is written explicitly.
//! The scripts call the packetsim executable that wrote them: rebuilding it before the tasks
//! run changes the experiment key (results of different builds are never mixed), so merge
//! then refuses the shards as different sweeps.

use std::path::{Path, PathBuf};

/// Slurm resources of each array task (and of the merge job, which needs one CPU).
#[derive(Clone, Debug, Default)]
pub struct Resources {
    /// `--time` per task, e.g. `01:00:00`.
    pub time: Option<String>,
    /// `--mem` per task, e.g. `2G`.
    pub mem: Option<String>,
    /// `--cpus-per-task` (also the task's `--jobs`).
    pub cpus: u32,
    /// `--partition`.
    pub partition: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--job-name` prefix.
    pub job_name: String,
}

/// Quotes `s` for a POSIX shell (the shlex crate; plain words stay as they are). A NUL byte,
/// which no shell word or command-line argument can hold, is left out.
pub fn shell_quote(s: &str) -> String {
    let s = s.replace('\0', "");
    // Without a NUL, quoting cannot fail (shlex refuses only NUL).
    shlex::try_quote(&s).map_or(s.clone(), |q| q.into_owned())
}

fn header(r: &Resources, name: &str, cpus: u32, log: &Path) -> String {
    let mut s = String::from("#!/bin/bash\n");
    s += &format!("#SBATCH --job-name={}\n", shell_quote(name));
    s += &format!("#SBATCH --cpus-per-task={cpus}\n");
    if let Some(t) = &r.time {
        s += &format!("#SBATCH --time={}\n", shell_quote(t));
    }
    if let Some(m) = &r.mem {
        s += &format!("#SBATCH --mem={}\n", shell_quote(m));
    }
    if let Some(p) = &r.partition {
        s += &format!("#SBATCH --partition={}\n", shell_quote(p));
    }
    if let Some(a) = &r.account {
        s += &format!("#SBATCH --account={}\n", shell_quote(a));
    }
    s += &format!("#SBATCH --output={}\n", log.display());
    s
}

/// The three scripts: (file name, contents, executable).
pub struct Scripts {
    /// Where they go (`OUT/slurm`).
    pub dir: PathBuf,
    /// (name, text) of sweep.sbatch, merge.sbatch, submit.sh.
    pub files: Vec<(&'static str, String)>,
}

/// The scripts for the sweep whose arguments (without `--out`, `--shard`, `--jobs` and the
/// emit options) are `sweep_args`, into `out` (absolute), over `shards` array tasks.
pub fn scripts(
    exe: &Path,
    sweep_args: &[String],
    out: &Path,
    shards: u32,
    r: &Resources,
) -> Scripts {
    let dir = out.join("slurm");
    let shard_dir = out.join("shards");
    let exe_q = shell_quote(&exe.display().to_string());
    let args: Vec<String> = sweep_args.iter().map(|a| shell_quote(a)).collect();

    let mut sweep = header(
        r,
        &format!("{}-sweep", r.job_name),
        r.cpus,
        &dir.join("sweep-%A_%a.log"),
    );
    sweep += &format!("#SBATCH --array=0-{}\n", shards - 1);
    sweep += "set -euo pipefail\n";
    sweep += &format!(
        "# One shard of {shards} of this sweep per array task (packetsim sweep --shard I/N).\n"
    );
    sweep += &format!(
        "exec {exe_q} sweep {} \\\n    --shard \"$SLURM_ARRAY_TASK_ID/{shards}\" \\\n    \
         --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" \\\n    --out {}/\"$SLURM_ARRAY_TASK_ID\"\n",
        args.join(" "),
        shell_quote(&shard_dir.display().to_string())
    );

    let mut merge = header(
        r,
        &format!("{}-merge", r.job_name),
        1,
        &dir.join("merge-%j.log"),
    );
    merge += "set -euo pipefail\n";
    merge += "# Runs after every array task succeeded (submit.sh: --dependency=afterok).\n";
    let dirs: Vec<String> = (0..shards)
        .map(|i| shell_quote(&shard_dir.join(i.to_string()).display().to_string()))
        .collect();
    merge += &format!(
        "exec {exe_q} sweep merge {} \\\n    {}\n",
        shell_quote(&out.display().to_string()),
        dirs.join(" \\\n    ")
    );

    let d = shell_quote(&dir.display().to_string());
    let submit = format!(
        "#!/bin/bash\n# Submits the sweep as a Slurm array of {shards} tasks, then the merge once \
         they all succeed.\nset -euo pipefail\n\
         array=$(sbatch --parsable {d}/sweep.sbatch)\n\
         array=${{array%%;*}}\n\
         merge=$(sbatch --parsable --dependency=afterok:\"$array\" {d}/merge.sbatch)\n\
         echo \"submitted array job $array ({shards} tasks) and merge job ${{merge%%;*}}; \
         results: {}/results.csv\"\n",
        out.display()
    );
    Scripts {
        dir,
        files: vec![
            ("sweep.sbatch", sweep),
            ("merge.sbatch", merge),
            ("submit.sh", submit),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quote_leaves_plain_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("links.ab.loss"), "links.ab.loss");
        assert_eq!(shell_quote("/work/out/sweep"), "/work/out/sweep");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        // What bash reads back is the word itself, whatever it holds.
        let words = [
            "links.ab.loss=0,0.01",
            "it's",
            r#"q={kind="red"}"#,
            "$HOME `x` \\ \"a\" *?[~#!",
            "^caret",
            "tab\tnewline\n",
        ];
        for w in words {
            let q = shell_quote(w);
            let Ok(o) = std::process::Command::new("bash")
                .args(["-c", &format!("printf %s {q}")])
                .output()
            else {
                eprintln!("SKIPPED the bash half: no bash");
                return;
            };
            assert_eq!(String::from_utf8_lossy(&o.stdout), w, "{q}");
        }
        assert_eq!(shell_quote("a\0b"), "ab");
    }
}
