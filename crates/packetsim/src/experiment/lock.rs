//! One writer per output directory (issue 16): `run`, `sweep` and `reproduce` hold an
//! exclusive advisory lock on `DIR/.packetsim.lock` while they write `DIR`. A second writer is
//! refused with an error naming the directory and the holder's process id, instead of both
//! reporting success while only the last one's files survive. The lock is the operating
//! system's (`flock` on Unix, `LockFileEx` on Windows, through the fs4 crate), so a killed
//! writer (even `kill -9`) releases it; the file itself stays and is harmless.
//!
//! Taking the lock also removes the temporaries ([`write_atomic`](super::aggregate::write_atomic)
//! names them `.NAME.tmp-PID`) that a killed writer left behind: no other writer can be
//! using them while the lock is held.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file's name inside an output directory.
pub const LOCK_FILE: &str = ".packetsim.lock";

/// Why an output directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "{}: another packetsim ({holder}) is writing this directory; wait for it to finish \
         or choose another output directory",
        dir.display()
    )]
    Busy {
        /// The output directory.
        dir: PathBuf,
        /// "pid N" as the holder wrote it, or "pid unknown".
        holder: String,
    },
    /// The directory or its lock file could not be created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// An exclusive lock on an output directory, released when dropped (or when the process
/// ends, however it ends).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// Creates `dir` if needed and locks it for this process, then removes the temporaries a
/// killed writer left there. Fails at once (never waits) if another process holds the lock.
pub fn lock_dir(dir: &Path) -> Result<DirLock, LockError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LockError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(LOCK_FILE);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    // fs4's trait method by its path: std's own File::try_lock (Rust 1.89) would shadow it.
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => {
            let mut held = String::new();
            let _ = file.read_to_string(&mut held);
            let holder = match held.trim() {
                "" => "pid unknown".to_owned(),
                h => h.to_owned(),
            };
            return Err(LockError::Busy {
                dir: dir.to_path_buf(),
                holder,
            });
        }
        Err(fs4::TryLockError::Error(e)) => return Err(io(&path)(e)),
    }
    file.set_len(0).map_err(io(&path))?;
    file.rewind().map_err(io(&path))?;
    write!(file, "pid {}", std::process::id()).map_err(io(&path))?;
    remove_temporaries(dir).map_err(io(dir))?;
    Ok(DirLock { _file: file })
}

/// Removes `.NAME.tmp-PID` files in `dir` and its subfolders (left by a writer killed
/// mid-write; a reproduction writes into nested folders). Symbolic links are not followed.
fn remove_temporaries(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_tmp = name.starts_with('.')
            && name
                .rsplit_once(".tmp-")
                .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        let kind = entry.file_type()?;
        if is_tmp && kind.is_file() {
            std::fs::remove_file(entry.path())?;
        } else if kind.is_dir() {
            remove_temporaries(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::test_support::TempDir;

    /// A second lock on the same directory is refused while the first is held, naming the
    /// holder's pid, and granted once the first is dropped.
    #[test]
    fn second_writer_is_refused_until_the_first_ends() {
        let t = TempDir::new("lock");
        let dir = t.path().join("out");
        let first = lock_dir(&dir).unwrap();
        let err = lock_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("another packetsim (pid ") && err.contains("is writing this directory"),
            "{err}"
        );
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        lock_dir(&dir).unwrap();
    }

    /// A killed writer's temporaries (also in subfolders) are removed when the next writer takes the lock; other
    /// files stay.
    #[test]
    fn leftover_temporaries_are_cleaned_by_the_next_writer() {
        let t = TempDir::new("lock-tmp");
        let dir = t.path();
        std::fs::write(dir.join(".results.csv.tmp-12345"), "half").unwrap();
        std::fs::write(dir.join("results.csv"), "kept").unwrap();
        std::fs::write(dir.join(".notes.tmp-x"), "kept").unwrap();
        std::fs::create_dir_all(dir.join("study/sub")).unwrap();
        std::fs::write(dir.join("study/sub/.fig.csv.tmp-77"), "half").unwrap();
        let _l = lock_dir(dir).unwrap();
        assert!(!dir.join("study/sub/.fig.csv.tmp-77").exists());
        assert!(!dir.join(".results.csv.tmp-12345").exists());
        assert!(dir.join("results.csv").exists());
        assert!(dir.join(".notes.tmp-x").exists());
    }
}
