//! The one way a scenario's files are read (issue 38): the scenario file itself and every
//! file it names (`size_cdf`).
//!
//! - Only a regular file is read: its type is checked before it is opened (a FIFO would block
//!   the open, a device could be endless, a folder has no text), it is opened without
//!   blocking and checked again through the open handle (a file swapped in between is seen).
//! - At most a cap of bytes is read ([`MAX_SCENARIO_BYTES`], [`MAX_DATA_FILE_BYTES`]); a
//!   larger file is refused without reading it.
//! - A file a scenario names resolves (after `..` and symbolic links) inside the scenario's
//!   folder or a folder the user names (`--allow-dir`): scenarios are shared between people
//!   and run on clusters, and must not read a user's other files.
//! - Errors never show a file's contents beyond a short, escaped excerpt of the offending
//!   token ([`excerpt`]); [`cap_echo`] shortens any long token of a message.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Largest scenario file read, bytes (64 MiB: a million-line scenario is about 30 MB).
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;
/// Largest data file a scenario names (`size_cdf`), bytes.
pub const MAX_DATA_FILE_BYTES: u64 = 16 << 20;
/// Characters of a value or token an error message shows at most ([`excerpt`]).
pub const EXCERPT_CHARS: usize = 40;

/// Why a file was not read. Its `Display` is one line naming the path as written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file's metadata could not be read (missing, no permission, ...).
    #[error("{path}: {source}")]
    Io {
        /// The path as written.
        path: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// Not a regular file.
    #[error("{path}: expected a regular file; this is {kind}")]
    NotRegular {
        /// The path as written.
        path: String,
        /// What it is: a folder, a FIFO, a device, a socket.
        kind: &'static str,
    },
    /// Larger than the cap.
    #[error("{path}: the file has {size} bytes, more than the {cap} bytes a {what} may have")]
    TooLarge {
        /// The path as written.
        path: String,
        /// Its size.
        size: u64,
        /// The cap.
        cap: u64,
        /// "scenario file", "data file".
        what: &'static str,
    },
    /// Outside the scenario's folder and every allowed folder.
    #[error(
        "{path}: resolves to {resolved}, outside the scenario's folder {root}{more}: a scenario \
         reads only files in its own folder (or below it); copy the file there, or name its \
         folder with --allow-dir"
    )]
    Outside {
        /// The path as written.
        path: String,
        /// Where it resolves.
        resolved: String,
        /// The scenario's folder.
        root: String,
        /// The allowed folders, if any, as ` and --allow-dir A, B`.
        more: String,
    },
}

impl FileError {
    /// What is wrong, without the path (for messages that name the path themselves).
    pub fn reason(&self) -> String {
        match self {
            FileError::Io { source, .. } => source.to_string(),
            FileError::NotRegular { kind, .. } => {
                format!("expected a regular file; this is {kind}")
            }
            FileError::TooLarge {
                size, cap, what, ..
            } => format!("the file has {size} bytes, more than the {cap} bytes a {what} may have"),
            FileError::Outside { .. } => {
                let full = self.to_string();
                let cut = full.find(": resolves").map_or(0, |i| i + 2);
                full[cut..].to_owned()
            }
        }
    }
}

/// What a file is, for messages.
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// `path` shown in a message: escaped and shortened ([`excerpt`]).
fn shown(path: &Path) -> String {
    excerpt(&path.to_string_lossy())
}

/// Reads the regular file at `path`, at most `cap` bytes (`what` names it in messages). Never
/// blocks on a FIFO: the type is checked before opening, the open does not block, and the
/// type and size are checked again on the open file.
pub fn read_regular(path: &Path, cap: u64, what: &'static str) -> Result<Vec<u8>, FileError> {
    let io = |source| FileError::Io {
        path: shown(path),
        source,
    };
    let check = |md: &std::fs::Metadata| -> Result<(), FileError> {
        if !md.file_type().is_file() {
            return Err(FileError::NotRegular {
                path: shown(path),
                kind: kind_of(md.file_type()),
            });
        }
        if md.len() > cap {
            return Err(FileError::TooLarge {
                path: shown(path),
                size: md.len(),
                cap,
                what,
            });
        }
        Ok(())
    };
    check(&std::fs::metadata(path).map_err(io)?)?;
    let file = {
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(O_NONBLOCK)
            .open(path)
            .map_err(io)?
    };
    check(&file.metadata().map_err(io)?)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge {
            path: shown(path),
            size: bytes.len() as u64,
            cap,
            what,
        });
    }
    Ok(bytes)
}

/// `O_NONBLOCK` (the same value on Linux's common architectures and on the BSDs' is 4).
#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(not(target_os = "linux"))]
const O_NONBLOCK: i32 = 4;

/// Resolves `rel`, a file named by the scenario `origin`, to a path inside the scenario's
/// folder or one of `allow_dirs`: relative paths are relative to the scenario's folder;
/// `..` and symbolic links are followed before the check.
pub fn resolve(origin: &str, rel: &str, allow_dirs: &[PathBuf]) -> Result<PathBuf, FileError> {
    let dir = Path::new(origin).parent().unwrap_or(Path::new(""));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let path = dir.join(rel);
    let io = |source| FileError::Io {
        path: excerpt(rel),
        source,
    };
    let resolved = std::fs::canonicalize(&path).map_err(io)?;
    let root = std::fs::canonicalize(dir).map_err(io)?;
    let inside = std::iter::once(root.clone())
        .chain(
            allow_dirs
                .iter()
                .filter_map(|d| std::fs::canonicalize(d).ok()),
        )
        .any(|r| resolved.starts_with(r));
    if !inside {
        let more = if allow_dirs.is_empty() {
            String::new()
        } else {
            let dirs: Vec<String> = allow_dirs.iter().map(|d| shown(d)).collect();
            format!(" and --allow-dir {}", dirs.join(", "))
        };
        return Err(FileError::Outside {
            path: excerpt(rel),
            resolved: shown(&resolved),
            root: shown(&root),
            more,
        });
    }
    Ok(resolved)
}

/// Reads `rel`, a data file the scenario `origin` names ([`resolve`], [`read_regular`] with
/// [`MAX_DATA_FILE_BYTES`]), as UTF-8 text.
pub fn read_named(origin: &str, rel: &str, allow_dirs: &[PathBuf]) -> Result<String, String> {
    let path = resolve(origin, rel, allow_dirs).map_err(|e| e.to_string())?;
    let bytes = read_regular(&path, MAX_DATA_FILE_BYTES, "data file").map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: the file is not UTF-8 text (byte offset {})",
            excerpt(rel),
            e.utf8_error().valid_up_to()
        )
    })
}

/// `s` quoted and escaped (control characters, quotes, backslashes), at most
/// [`EXCERPT_CHARS`] characters of it, with the whole length when cut:
/// `"root:*:2022…" (40 of 1234 characters)`.
pub fn excerpt(s: &str) -> String {
    excerpt_n(s, EXCERPT_CHARS)
}

/// A path as written in a scenario, for messages: as it is when short and printable, else
/// its [`excerpt`].
pub fn shown_path(s: &str) -> String {
    if s.chars().count() <= EXCERPT_CHARS && !s.chars().any(char::is_control) {
        s.to_owned()
    } else {
        excerpt(s)
    }
}

/// Characters of a data file's token an error shows at most ([`excerpt_n`]).
pub const FILE_EXCERPT_CHARS: usize = 16;

/// [`excerpt`] of at most `max` characters.
pub fn excerpt_n(s: &str, max: usize) -> String {
    let n = s.chars().count();
    let mut out = String::from("\"");
    for c in s.chars().take(max) {
        for e in c.escape_debug() {
            out.push(e);
        }
    }
    out.push('"');
    if n > max {
        out.pop();
        let _ = write!(out, "…\" ({max} of {n} characters)");
    }
    out
}

/// Longest token (run of non-whitespace) a message shows whole; longer ones are cut by
/// [`cap_echo`].
pub const MAX_TOKEN_CHARS: usize = 120;

/// `msg` with every token longer than [`MAX_TOKEN_CHARS`] characters cut to its first
/// [`EXCERPT_CHARS`] and its length (issue 38: 95 messages echoed a 100,000-character value
/// whole). Every error a user sees passes through it.
pub fn cap_echo(msg: &str) -> std::borrow::Cow<'_, str> {
    let long = msg
        .split(char::is_whitespace)
        .any(|t| t.len() > MAX_TOKEN_CHARS && t.chars().count() > MAX_TOKEN_CHARS);
    if !long {
        return msg.into();
    }
    let mut out = String::with_capacity(MAX_TOKEN_CHARS * 4);
    let mut rest = msg;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        let n = token.chars().count();
        if n > MAX_TOKEN_CHARS {
            out.extend(token.chars().take(EXCERPT_CHARS));
            let _ = write!(out, "…({n} characters)");
        } else {
            out.push_str(token);
        }
        rest = &rest[end..];
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("packetsim-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Issue 38: `check` on a FIFO blocked forever in open(2). The type is checked first,
    /// and the open would not block anyway.
    #[test]
    fn fifos_devices_and_folders_are_refused_without_blocking() {
        let d = tmp("fifo");
        let fifo = d.join("p");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(ok.success());
        let e = read_regular(&fifo, 100, "scenario file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a regular file; this is a FIFO"), "{e}");
        let e = read_regular(Path::new("/dev/zero"), 100, "scenario file").unwrap_err();
        assert!(e.to_string().contains("this is a device"), "{e}");
        let e = read_regular(&d, 100, "scenario file").unwrap_err();
        assert!(e.to_string().contains("this is a folder"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_file_above_the_cap_is_refused_unread() {
        let d = tmp("cap");
        let f = d.join("big");
        std::fs::write(&f, vec![b'x'; 101]).unwrap();
        let e = read_regular(&f, 100, "data file").unwrap_err().to_string();
        assert!(
            e.contains("101 bytes, more than the 100 bytes a data file may have"),
            "{e}"
        );
        assert_eq!(read_regular(&f, 101, "data file").unwrap().len(), 101);
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 38: `size_cdf = "/etc/shadow"` read the file. Absolute paths, `..` and links
    /// leading out of the scenario's folder are refused unless their folder is allowed.
    #[test]
    fn named_files_stay_inside_the_scenario_folder_or_an_allowed_one() {
        let d = tmp("roots");
        std::fs::create_dir_all(d.join("s/sub")).unwrap();
        std::fs::create_dir_all(d.join("data")).unwrap();
        std::fs::write(d.join("s/sub/a.cdf"), "1 1\n").unwrap();
        std::fs::write(d.join("data/b.cdf"), "2 1\n").unwrap();
        std::os::unix::fs::symlink(d.join("data/b.cdf"), d.join("s/link.cdf")).unwrap();
        let origin = d.join("s/x.toml").display().to_string();
        assert_eq!(read_named(&origin, "sub/a.cdf", &[]).unwrap(), "1 1\n");
        assert_eq!(
            read_named(&origin, "./sub/../sub/a.cdf", &[]).unwrap(),
            "1 1\n"
        );
        for bad in ["../data/b.cdf", "link.cdf", "/etc/passwd"] {
            let e = read_named(&origin, bad, &[]).unwrap_err();
            assert!(e.contains("outside the scenario's folder"), "{bad}: {e}");
            assert!(!e.contains("root:"), "{e}");
        }
        let allow = [d.join("data")];
        assert_eq!(
            read_named(&origin, "../data/b.cdf", &allow).unwrap(),
            "2 1\n"
        );
        assert_eq!(read_named(&origin, "link.cdf", &allow).unwrap(), "2 1\n");
        let e = read_named(&origin, "/etc/passwd", &allow).unwrap_err();
        assert!(e.contains("and --allow-dir"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn excerpts_are_short_and_escaped_and_long_tokens_are_cut() {
        assert_eq!(excerpt("a\"b\n"), "\"a\\\"b\\n\"");
        let long = "x".repeat(100_000);
        let e = excerpt(&long);
        assert!(e.ends_with("…\" (40 of 100000 characters)"), "{e}");
        assert!(e.chars().count() < 80);
        let msg = format!("f.toml:3: links.l.rate: expected a rate; got {long:?}");
        let c = cap_echo(&msg);
        assert!(
            c.starts_with("f.toml:3: links.l.rate: expected a rate; got \"xxx"),
            "{c}"
        );
        assert!(c.ends_with("…(100002 characters)"), "{c}");
        assert!(c.len() < 200);
        let short = "f.toml:3: k: expected a rate; got \"10 Mbs\"";
        assert_eq!(cap_echo(short), short);
    }
}
