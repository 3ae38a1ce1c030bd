//! Output sets (issue 16): the files a command writes into an output directory form a set,
//! finished by a manifest written last, so a reader can always tell a complete set from an
//! interrupted one.
//!
//! `DIR/manifest.txt` lists every file of the set with its SHA-256 hash and size. A
//! directory whose manifest is present and matches its files is complete; a directory without
//! one (or whose files differ from it) is incomplete: a command is writing it or was killed
//! while writing it. [`verify`] checks a directory; `packetsim verify DIR` prints the answer.
//!
//! The protocol ([`OutputSet`]), run while the directory's lock ([`super::lock_dir`]) is held:
//!
//! 1. [`OutputSet::begin`]: the paths of the previous set (its manifest) and of any
//!    interrupted attempt (`.manifest.pending`) are gathered into a new `.manifest.pending`,
//!    synced; then the manifest is removed (from here on the directory reads as incomplete).
//! 2. Every file is written to a temporary name, synced and renamed
//!    ([`super::aggregate::write_atomic`]); its path is appended to `.manifest.pending`
//!    *before* the rename, so a kill never leaves a file that no record names.
//! 3. [`OutputSet::commit`]: files named in `.manifest.pending` that the new set does not
//!    contain (an earlier run's time series, say) are removed; the directories are synced;
//!    every file of the set is hashed; the manifest is written (temporary name, sync, rename,
//!    directory sync); `.manifest.pending` is removed.
//!
//! A kill at any point therefore leaves either the old manifest and the old files (before
//! step 1 completes) or no manifest (incomplete) or the new manifest and the new files. Never
//! a manifest over a mix. Results stores (`results.sqlite`) are not part of a set: they commit
//! each run in its own transaction and are trusted run by run.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// The manifest's file name inside an output directory.
pub const OUTPUT_MANIFEST: &str = "manifest.txt";

/// The record of an unfinished set (paths written or owned, one per line).
pub const PENDING_FILE: &str = ".manifest.pending";

/// The manifest's first line.
const HEADER: &str = "# packetsim output manifest 2: sha256 hash, bytes, path. A folder \
                      without this file, or whose files differ from it, is incomplete.";

/// The first line of the manifests packetsim wrote before 2026-12-07 (64-bit FNV-1a hashes):
/// recognised so that `verify` can say what to do with such a folder.
const HEADER_1: &str = "# packetsim output manifest 1: fnv1a-64 hash, bytes, path. A folder \
                        without this file, or whose files differ from it, is incomplete.";

/// A file's SHA-256, as the manifest writes it (64 lowercase hex digits).
pub type Digest = [u8; 32];

fn hex(d: &Digest) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(s: &str) -> Option<Digest> {
    if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut d = [0u8; 32];
    for (i, b) in d.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(d)
}

/// One file of a set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the set's directory, `/`-separated.
    pub path: String,
    /// SHA-256 of the contents.
    pub hash: Digest,
    /// Size in bytes.
    pub size: u64,
}

/// Why a directory does not hold a complete set.
#[derive(Debug, thiserror::Error)]
pub enum Incomplete {
    /// No manifest: never finished, or being written, or interrupted.
    #[error("{}: incomplete: no {OUTPUT_MANIFEST} (the command writing it has not finished or was interrupted)", dir.display())]
    NoManifest {
        /// The directory.
        dir: PathBuf,
    },
    /// A listed file is missing or differs from the manifest.
    #[error("{}: incomplete: {what} (differs from {OUTPUT_MANIFEST})", path.display())]
    Differs {
        /// The file.
        path: PathBuf,
        /// What differs.
        what: String,
    },
    /// The manifest cannot be read.
    #[error("{}:{line}: unreadable manifest: {what}", path.display())]
    Malformed {
        /// The manifest.
        path: PathBuf,
        /// Its line (1-based; 0 = the file itself).
        line: usize,
        /// What is wrong.
        what: String,
    },
}

/// Checks that `dir` holds a complete set: its manifest exists, parses, and every file it
/// lists exists with the listed size and hash. Returns the entries.
pub fn verify(dir: &Path) -> Result<Vec<Entry>, Incomplete> {
    let path = dir.join(OUTPUT_MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Incomplete::NoManifest {
                dir: dir.to_path_buf(),
            })
        }
        Err(e) => {
            return Err(Incomplete::Malformed {
                path,
                line: 0,
                what: e.to_string(),
            })
        }
    };
    let entries = parse(&path, &text)?;
    for e in &entries {
        let file = dir.join(&e.path);
        match hash_file(&file) {
            Ok((hash, size)) if hash == e.hash && size == e.size => {}
            Ok((hash, size)) => {
                return Err(Incomplete::Differs {
                    path: file,
                    what: format!(
                        "{size} bytes, hash {}; the manifest says {} bytes, hash {}",
                        hex(&hash),
                        e.size,
                        hex(&e.hash)
                    ),
                })
            }
            Err(err) => {
                return Err(Incomplete::Differs {
                    path: file,
                    what: err.to_string(),
                })
            }
        }
    }
    Ok(entries)
}

fn parse(path: &Path, text: &str) -> Result<Vec<Entry>, Incomplete> {
    let bad = |line: usize, what: &str| Incomplete::Malformed {
        path: path.to_path_buf(),
        line,
        what: what.to_string(),
    };
    if !text.ends_with('\n') {
        return Err(bad(0, "does not end with a newline (truncated)"));
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            if line == HEADER_1 {
                return Err(bad(
                    1,
                    "written by an older packetsim (64-bit FNV hashes); run the command again \
                     to rewrite the folder",
                ));
            }
            if line != HEADER {
                return Err(bad(1, "not a packetsim output manifest"));
            }
            continue;
        }
        let mut it = line.splitn(3, ' ');
        let (Some(h), Some(s), Some(p)) = (it.next(), it.next(), it.next()) else {
            return Err(bad(i + 1, "expected HASH SIZE PATH"));
        };
        let hash = from_hex(h).ok_or_else(|| bad(i + 1, "bad hash (expected 64 hex digits)"))?;
        let size = s.parse().map_err(|_| bad(i + 1, "bad size"))?;
        if !safe_relative(p) {
            return Err(bad(i + 1, "path must be relative, inside the folder"));
        }
        out.push(Entry {
            path: p.to_string(),
            hash,
            size,
        });
    }
    Ok(out)
}

/// A relative path with no `..`, root or prefix.
fn safe_relative(p: &str) -> bool {
    !p.is_empty()
        && Path::new(p)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// SHA-256 of a file's contents (the `sha2` crate), streamed, and its size.
fn hash_file(path: &Path) -> std::io::Result<(Digest, u64)> {
    use sha2::Digest as _;
    let mut f = std::fs::File::open(path)?;
    let mut h = sha2::Sha256::new();
    let size = std::io::copy(&mut f, &mut h)?;
    Ok((h.finalize().into(), size))
}

/// Sets being written by this process: (id, directory, files written, pending record).
struct Active {
    id: u64,
    dir: PathBuf,
    /// `dir` resolved, to recognise a path spelt another way (`./out/x`, an absolute one).
    canon: Option<PathBuf>,
    files: BTreeSet<String>,
    pending: std::fs::File,
    error: Option<std::io::Error>,
}

static ACTIVE: Mutex<Vec<Active>> = Mutex::new(Vec::new());
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn active() -> std::sync::MutexGuard<'static, Vec<Active>> {
    ACTIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// `path` relative to `dir` as a `/`-separated string, if it is inside it.
fn relative(dir: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(dir).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Records that `path` is about to be written: every set being written whose directory
/// contains it takes it as a member, and its pending record names it before it exists.
/// Called by [`super::aggregate::write_atomic`] before its rename.
pub fn note_written(path: &Path) {
    let mut sets = active();
    if sets.is_empty() {
        return;
    }
    let resolved = path
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .zip(path.file_name())
        .map(|(p, n)| p.join(n));
    for s in sets.iter_mut() {
        let rel =
            relative(&s.dir, path).or_else(|| relative(s.canon.as_deref()?, resolved.as_deref()?));
        let Some(rel) = rel else {
            continue;
        };
        if rel == OUTPUT_MANIFEST || rel == PENDING_FILE {
            continue;
        }
        if s.files.insert(rel.clone()) {
            let r = writeln!(s.pending, "{rel}").and_then(|()| s.pending.sync_data());
            if let Err(e) = r {
                s.error.get_or_insert(e);
            }
        }
    }
}

/// A set of files being written into a directory (see the module doc). Dropping it without
/// [`commit`](OutputSet::commit) leaves the directory incomplete.
#[derive(Debug)]
pub struct OutputSet {
    id: u64,
    dir: PathBuf,
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Paths listed in a manifest or a pending record (unreadable lines are skipped: they name
/// nothing this code wrote).
fn listed(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(text) = std::fs::read_to_string(dir.join(OUTPUT_MANIFEST)) {
        for line in text.lines().skip(1) {
            if let Some(p) = line.splitn(3, ' ').nth(2) {
                out.insert(p.to_string());
            }
        }
    }
    if let Ok(f) = std::fs::File::open(dir.join(PENDING_FILE)) {
        for line in std::io::BufReader::new(f).lines().map_while(Result::ok) {
            out.insert(line);
        }
    }
    out.retain(|p| safe_relative(p) && p != OUTPUT_MANIFEST && p != PENDING_FILE);
    out
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_at(dir))
}

/// `result` of writing through the temporary `tmp`; on an error the temporary is removed
/// (issue 38: a write failed on a full disk left its 2 MB temporary).
pub(crate) fn remove_tmp_on_error<T, E>(tmp: &Path, result: Result<T, E>) -> Result<T, E> {
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result
}

/// Writes `text` to `tmp`, syncs it and renames it to `path`; on any failure the temporary file
/// is removed and the error names the file it concerns.
fn write_synced(tmp: &Path, path: &Path, text: &str) -> std::io::Result<()> {
    let written = (|| {
        let mut f = std::fs::File::create(tmp).map_err(io_at(tmp))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(io_at(tmp))?;
        drop(f);
        std::fs::rename(tmp, path).map_err(io_at(path))
    })();
    remove_tmp_on_error(tmp, written)
}

impl OutputSet {
    /// Starts a new set in `dir` (created if needed). The caller holds the directory's lock.
    /// From here until [`commit`](OutputSet::commit) the directory reads as incomplete.
    pub fn begin(dir: &Path) -> std::io::Result<OutputSet> {
        std::fs::create_dir_all(dir).map_err(io_at(dir))?;
        let previous = listed(dir);
        let pending_path = dir.join(PENDING_FILE);
        let tmp = dir.join(format!(".manifest.pending.tmp-{}", std::process::id()));
        let mut text = String::new();
        for p in &previous {
            text.push_str(p);
            text.push('\n');
        }
        write_synced(&tmp, &pending_path, &text)?;
        match std::fs::remove_file(dir.join(OUTPUT_MANIFEST)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io_at(&dir.join(OUTPUT_MANIFEST))(e))
            }
            _ => {}
        }
        sync_dir(dir)?;
        let pending = std::fs::OpenOptions::new()
            .append(true)
            .open(&pending_path)
            .map_err(io_at(&pending_path))?;
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        active().push(Active {
            id,
            dir: dir.to_path_buf(),
            canon: std::fs::canonicalize(dir).ok(),
            files: BTreeSet::new(),
            pending,
            error: None,
        });
        Ok(OutputSet {
            id,
            dir: dir.to_path_buf(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds a file written by other means than `write_atomic` (a pcap capture, say) to
    /// every set being written whose folder contains it; it must exist at commit.
    pub fn add(&self, path: &Path) {
        note_written(path);
    }

    /// Finishes the set: removes files of earlier sets this one does not contain, hashes this
    /// set's files and writes the manifest last. Returns the entries.
    pub fn commit(self) -> std::io::Result<Vec<Entry>> {
        let a = {
            let mut sets = active();
            let i = sets
                .iter()
                .position(|s| s.id == self.id)
                .expect("an output set is registered until committed or dropped");
            sets.remove(i)
        };
        std::mem::forget(self);
        if let Some(e) = a.error {
            return Err(io_at(&a.dir.join(PENDING_FILE))(e));
        }
        let dir = &a.dir;
        let mut dirs = BTreeSet::from([dir.clone()]);
        for old in listed(dir) {
            if a.files.contains(&old) {
                continue;
            }
            let path = dir.join(&old);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_at(&path)(e)),
                _ => {}
            }
            if let Some(parent) = path.parent() {
                dirs.insert(parent.to_path_buf());
            }
        }
        let mut entries = Vec::with_capacity(a.files.len());
        let mut text = format!("{HEADER}\n");
        for rel in &a.files {
            let path = dir.join(rel);
            let (hash, size) = hash_file(&path).map_err(io_at(&path))?;
            if let Some(parent) = path.parent() {
                dirs.insert(parent.to_path_buf());
            }
            text.push_str(&format!("{} {size} {rel}\n", hex(&hash)));
            entries.push(Entry {
                path: rel.clone(),
                hash,
                size,
            });
        }
        for d in dirs.iter().filter(|d| d.is_dir()) {
            sync_dir(d)?;
        }
        let manifest = dir.join(OUTPUT_MANIFEST);
        let tmp = dir.join(format!(".{OUTPUT_MANIFEST}.tmp-{}", std::process::id()));
        write_synced(&tmp, &manifest, &text)?;
        sync_dir(dir)?;
        let pending = dir.join(PENDING_FILE);
        std::fs::remove_file(&pending).map_err(io_at(&pending))?;
        Ok(entries)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        active().retain(|s| s.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::aggregate::write_atomic;
    use crate::experiment::test_support::TempDir;

    /// A committed set verifies, and lists exactly the files written while it was open
    /// (sorted), not the lock, the pending record or the manifest itself.
    #[test]
    fn committed_set_verifies_and_lists_its_files() {
        let t = TempDir::new("set");
        let dir = t.path().join("out");
        let set = OutputSet::begin(&dir).unwrap();
        write_atomic(&dir.join("b.csv"), "b\n").unwrap();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        write_atomic(&dir.join("sub/a.csv"), "a\n").unwrap();
        // Outside the set's folder: not a member.
        write_atomic(&t.path().join("elsewhere.csv"), "x\n").unwrap();
        assert!(matches!(verify(&dir), Err(Incomplete::NoManifest { .. })));
        let entries = set.commit().unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(names, ["b.csv", "sub/a.csv"]);
        assert_eq!(verify(&dir).unwrap(), entries);
        assert!(!dir.join(PENDING_FILE).exists());
        // "b\n": its SHA-256 (as `printf 'b\n' | sha256sum` prints it).
        assert_eq!(
            hex(&entries[0].hash),
            "0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f"
        );
        assert_eq!(entries[0].size, 2);
    }

    /// A folder written before the manifest used SHA-256 is not taken for complete, and the
    /// error says why and what to do.
    #[test]
    fn a_manifest_of_the_fnv_format_asks_for_a_rerun() {
        let t = TempDir::new("set-v1");
        let dir = t.path();
        std::fs::write(dir.join("a.csv"), "one\n").unwrap();
        std::fs::write(
            dir.join(OUTPUT_MANIFEST),
            format!("{HEADER_1}\n0123456789abcdef 4 a.csv\n"),
        )
        .unwrap();
        let e = verify(dir).unwrap_err().to_string();
        assert!(
            e.contains(":1: unreadable manifest: written by an older packetsim"),
            "{e}"
        );
    }

    /// A changed, truncated or missing file, or a truncated manifest, makes the directory
    /// incomplete, naming the file.
    #[test]
    fn a_file_that_differs_from_the_manifest_is_incomplete() {
        let t = TempDir::new("set-differs");
        let dir = t.path();
        let set = OutputSet::begin(dir).unwrap();
        write_atomic(&dir.join("a.csv"), "one\n").unwrap();
        write_atomic(&dir.join("b.csv"), "two\n").unwrap();
        set.commit().unwrap();
        std::fs::write(dir.join("a.csv"), "One\n").unwrap();
        let e = verify(dir).unwrap_err().to_string();
        assert!(e.contains("a.csv: incomplete") && e.contains("hash"), "{e}");
        std::fs::write(dir.join("a.csv"), "one\n").unwrap();
        verify(dir).unwrap();
        std::fs::remove_file(dir.join("b.csv")).unwrap();
        let e = verify(dir).unwrap_err().to_string();
        assert!(e.contains("b.csv: incomplete"), "{e}");
        let m = std::fs::read_to_string(dir.join(OUTPUT_MANIFEST)).unwrap();
        std::fs::write(dir.join(OUTPUT_MANIFEST), &m[..m.len() - 3]).unwrap();
        let e = verify(dir).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }

    /// A new set replaces the old one: files of the old set it does not write are removed,
    /// also those written by an attempt that was interrupted in between (simulated by
    /// dropping a set without committing it).
    #[test]
    fn a_new_set_removes_the_old_sets_and_interrupted_attempts_files() {
        let t = TempDir::new("set-stale");
        let dir = t.path();
        let set = OutputSet::begin(dir).unwrap();
        write_atomic(&dir.join("summary.json"), "1").unwrap();
        write_atomic(&dir.join("old_series.csv"), "1").unwrap();
        set.commit().unwrap();
        // Interrupted: writes a file of its own, never commits.
        let set = OutputSet::begin(dir).unwrap();
        assert!(!dir.join(OUTPUT_MANIFEST).exists());
        write_atomic(&dir.join("summary.json"), "2").unwrap();
        write_atomic(&dir.join("interrupted.csv"), "2").unwrap();
        drop(set);
        assert!(matches!(verify(dir), Err(Incomplete::NoManifest { .. })));
        // A user's own file is never touched.
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let set = OutputSet::begin(dir).unwrap();
        write_atomic(&dir.join("summary.json"), "3").unwrap();
        let entries = set.commit().unwrap();
        assert_eq!(entries.len(), 1);
        assert!(!dir.join("old_series.csv").exists());
        assert!(!dir.join("interrupted.csv").exists());
        assert!(dir.join("notes.txt").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.json")).unwrap(),
            "3"
        );
        verify(dir).unwrap();
    }

    /// The pending record names a file before the file exists under its own name, so an
    /// interrupted attempt's files are always known to the next one.
    #[test]
    fn the_pending_record_names_a_file_before_it_is_written() {
        let t = TempDir::new("set-pending");
        let dir = t.path();
        let set = OutputSet::begin(dir).unwrap();
        note_written(&dir.join("x.csv"));
        let pending = std::fs::read_to_string(dir.join(PENDING_FILE)).unwrap();
        assert_eq!(pending, "x.csv\n");
        drop(set);
    }

    /// Manifest paths cannot leave the folder.
    #[test]
    fn manifest_paths_must_stay_inside_the_folder() {
        let t = TempDir::new("set-escape");
        let dir = t.path();
        std::fs::write(
            dir.join(OUTPUT_MANIFEST),
            format!("{HEADER}\n0000000000000000 0 ../x\n"),
        )
        .unwrap();
        let e = verify(dir).unwrap_err().to_string();
        assert!(e.contains(":2: unreadable manifest"), "{e}");
    }
}
