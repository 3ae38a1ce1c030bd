//! `--set path=value` overrides, applied to the TOML document before it is deserialized, so
//! an overridden value is checked exactly like one written in the file.

use std::fmt;
use std::str::FromStr;
use toml_edit::{DocumentMut, InlineTable, Item, Key, Table, Value};

/// One `--set path=value` override, e.g. `links.bottleneck.loss=0.01`.
///
/// The value is read as a TOML value (number, boolean, string, inline table or array); when
/// it is not valid TOML it is taken as a string, so `links.l1.rate=10Mbps` needs no quotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// Dotted key path, e.g. `flows.ftp.tcp.variant`.
    pub path: String,
    /// The value as written after `=`.
    pub value: String,
}

/// Why a `--set` argument is not of the form `path=value`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideParseError {
    /// There is no `=`.
    #[error("--set {0}: expected `path=value`, e.g. `links.bottleneck.loss=0.01`")]
    MissingEquals(String),
    /// The part before `=` is empty.
    #[error("--set {0}: the key path before `=` is empty")]
    EmptyPath(String),
}

impl FromStr for Override {
    type Err = OverrideParseError;
    fn from_str(s: &str) -> Result<Override, OverrideParseError> {
        let (path, value) = s
            .split_once('=')
            .ok_or_else(|| OverrideParseError::MissingEquals(s.to_owned()))?;
        let path = path.trim();
        if path.is_empty() {
            return Err(OverrideParseError::EmptyPath(s.to_owned()));
        }
        Ok(Override {
            path: path.to_owned(),
            value: value.trim().to_owned(),
        })
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.path, self.value)
    }
}

impl Override {
    /// The path split into keys (quoted keys allowed, as in TOML).
    pub(crate) fn keys(&self) -> Result<Vec<String>, String> {
        let keys = Key::parse(&self.path).map_err(|e| {
            format!(
                "expected a dotted key path such as `links.bottleneck.loss`: {}",
                e.message().trim()
            )
        })?;
        if keys.is_empty() {
            return Err("the key path is empty".into());
        }
        Ok(keys.iter().map(|k| k.get().to_owned()).collect())
    }

    /// The value as TOML: parsed when it is valid TOML, else a string.
    fn toml_value(&self) -> Value {
        let mut v = self
            .value
            .parse::<Value>()
            .unwrap_or_else(|_| Value::from(self.value.as_str()));
        v.decor_mut().clear();
        v
    }

    /// Sets the value in `doc`, creating missing tables on the way.
    pub(crate) fn apply(&self, doc: &mut DocumentMut) -> Result<(), String> {
        let keys = self.keys()?;
        let (last, parents) = keys.split_last().expect("keys() is never empty");
        let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
        // Inside an inline table, missing tables must be inline tables too.
        let mut inline = false;
        let mut walked = Vec::new();
        for k in parents {
            walked.push(k.as_str());
            let item = table.entry(k).or_insert_with(|| {
                if inline {
                    Item::Value(Value::InlineTable(InlineTable::new()))
                } else {
                    let mut t = Table::new();
                    t.set_implicit(true);
                    Item::Table(t)
                }
            });
            match item {
                Item::Table(_) => inline = false,
                Item::Value(Value::InlineTable(_)) => inline = true,
                _ => {}
            }
            let kind = item.type_name();
            table = match item.as_table_like_mut() {
                Some(t) => t,
                None => {
                    return Err(format!(
                        "{} is {} in the scenario, not a table, so it has no key `{}`",
                        walked.join("."),
                        article(kind),
                        keys[walked.len()]
                    ))
                }
            };
        }
        let mut value = self.toml_value();
        // A new table under a standard table becomes a `[header]` table, so that it is
        // printed after its siblings and keeps its place in file order.
        let as_item = |v: Value| match v {
            Value::InlineTable(t) if !inline => Item::Table(t.into_table()),
            v => Item::Value(v),
        };
        match table.get_mut(last) {
            Some(Item::Value(old)) => {
                *value.decor_mut() = old.decor().clone();
                *old = value;
            }
            Some(item) => *item = as_item(value),
            None => {
                table.insert(last, as_item(value));
            }
        }
        Ok(())
    }
}

fn article(type_name: &str) -> String {
    match type_name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_name}"),
        _ => format!("a {type_name}"),
    }
}
