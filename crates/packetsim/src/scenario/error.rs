//! User-facing scenario errors. Every message names the file, then either the line or the
//! `--set` override the value came from, then the key path, then what was expected:
//!
//! ```text
//! scenarios/x.toml:12: links.bottleneck.rate: expected a rate with a unit (bps, kbps, Mbps, Gbps), e.g. "10Mbps"; got "10 Mbs"
//! scenarios/x.toml: --set links.bottleneck.loss=2: links.bottleneck.loss: expected a probability in [0, 1]; got 2
//! ```

use std::fmt;
use std::path::PathBuf;

use super::files::cap_echo;

/// Where in the user's input a problem is: a line of the file, or a command-line override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line number in the scenario file.
    Line(usize),
    /// A `--set path=value` override, written as the user gave it (without `--set`).
    Override(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(l) => write!(f, "{l}"),
            Location::Override(o) => write!(f, " --set {o}"),
        }
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{}: cannot read the scenario file: {source}", path.display())]
    Read {
        /// The file asked for.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not one a scenario may be read from (not a regular file, too large).
    #[error("{}", cap_echo(.0))]
    File(String),
    /// The text is not valid TOML (or not UTF-8 text at all).
    #[error("{}:{line}:{column}: {}: invalid TOML: {}", cap_echo(.origin), cap_echo(.key), cap_echo(.message))]
    Syntax {
        /// File name used in messages.
        origin: String,
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column (in characters) of the syntax error.
        column: usize,
        /// The key being written there, as far as the text before the error tells:
        /// `[table].key` as a dotted path, or the table, or `(top level)`.
        key: String,
        /// What the TOML parser expected, never empty.
        message: String,
    },
    /// A `--set` override could not be applied to the document.
    #[error("{}: --set {}: {}", cap_echo(.origin), cap_echo(.set), cap_echo(.message))]
    Override {
        /// File name used in messages.
        origin: String,
        /// The override as the user wrote it (`path=value`).
        set: String,
        /// What is wrong with it.
        message: String,
    },
    /// A key is unknown, missing, of the wrong type or has a value out of range, or the
    /// scenario is inconsistent (unknown node, duplicate name, ...).
    #[error("{}:{}: {}: {}", cap_echo(.origin), cap_echo(&.at.to_string()), cap_echo(.key), cap_echo(.message))]
    Invalid {
        /// File name used in messages.
        origin: String,
        /// The line, or the override the offending value came from.
        at: Location,
        /// Dotted key path, e.g. `links.bottleneck.rate` or `links.l1.outages[0].from`.
        key: String,
        /// What was expected, and what was found.
        message: String,
    },
}

impl ScenarioError {
    /// The 1-based line the error points at, when it points at a line of the file.
    pub fn line(&self) -> Option<usize> {
        match self {
            ScenarioError::Syntax { line, .. } => Some(*line),
            ScenarioError::Invalid {
                at: Location::Line(l),
                ..
            } => Some(*l),
            _ => None,
        }
    }

    /// The dotted key path the error is about, when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ScenarioError::Invalid { key, .. } | ScenarioError::Syntax { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// Where the scenario's named items are written (`nodes.NAME`, `links.NAME`, `flows.NAME`,
/// their `a`/`b`/`from`/`to` keys and `nodes.NAME.routes[i]`), kept with a loaded
/// [`super::Scenario`] so that errors found after loading (when assembling the network) still
/// name a line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyLines(pub(crate) std::collections::HashMap<String, Location>);

impl KeyLines {
    /// Where `key` (a dotted path as the builder writes it) or its nearest recorded ancestor
    /// is written. A flow copy `NAME_i` made by `count` is found at its table `NAME`.
    pub fn locate(&self, key: &str) -> Option<Location> {
        let mut k = key;
        loop {
            if let Some(l) = self.0.get(k) {
                return Some(l.clone());
            }
            if let Some(name) = k.strip_prefix("flows.") {
                if let Some((table, i)) = name.rsplit_once('_') {
                    if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) {
                        if let Some(l) = self.0.get(&format!("flows.{table}")) {
                            return Some(l.clone());
                        }
                    }
                }
            }
            let cut = k.rfind(['.', '['])?;
            k = &k[..cut];
        }
    }

    /// `key` and where it is written, for messages: `nodes.a, line 3`.
    pub fn describe(&self, key: &str) -> String {
        match self.locate(key) {
            Some(Location::Line(l)) => format!("{key}, line {l}"),
            Some(Location::Override(o)) => format!("{key}, --set {o}"),
            None => key.to_owned(),
        }
    }
}
