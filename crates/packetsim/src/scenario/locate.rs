//! Mapping between byte spans of a TOML document and dotted key paths, so that errors from
//! serde (which carry a span) and from validation (which know a key path) can both name the
//! key and the line.

use std::fmt;
use std::ops::Range;
use toml_edit::{ImDocument, Item, TableLike, Value};

/// One step of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Seg {
    /// A key in a table.
    Key(String),
    /// An index in an array.
    Index(usize),
}

/// A path from the document root to a key, e.g. `links.l1.outages[0].from`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    /// A path of table keys.
    pub fn keys<S: AsRef<str>>(keys: &[S]) -> KeyPath {
        KeyPath(
            keys.iter()
                .map(|k| Seg::Key(k.as_ref().to_owned()))
                .collect(),
        )
    }
    /// This path extended by a key.
    pub fn key(&self, k: &str) -> KeyPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_owned()));
        p
    }
    /// This path extended by the parts of a dotted key (`bs_buffer.w_max`), one step each.
    pub fn dotted(&self, k: &str) -> KeyPath {
        let mut p = self.clone();
        for part in k.split('.') {
            p.0.push(Seg::Key(part.to_owned()));
        }
        p
    }
    /// This path extended by an array index.
    pub fn index(&self, i: usize) -> KeyPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
    /// Whether `prefix` is a prefix of (or equal to) this path.
    pub fn starts_with(&self, prefix: &KeyPath) -> bool {
        self.0.len() >= prefix.0.len() && self.0[..prefix.0.len()] == prefix.0[..]
    }
    /// The path without its last step (the root stays the root).
    pub fn parent(&self) -> KeyPath {
        let mut p = self.clone();
        p.0.pop();
        p
    }
}

/// Whether `k` can be written as a bare TOML key.
pub(crate) fn is_bare(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    if is_bare(k) {
                        f.write_str(k)?;
                    } else {
                        write!(f, "{k:?}")?;
                    }
                }
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Every key, value and table of a parsed document with its byte span.
pub(crate) struct SpanIndex {
    entries: Vec<(KeyPath, Range<usize>)>,
    /// Indices into `entries`, sorted by path then start: a path is found by binary search.
    /// (A linear scan made locating every node, link and flow quadratic: 1.7 s of a
    /// 1000-flow dumbbell's 1.9 s, and hours at 100,000 flows.)
    by_path: Vec<u32>,
    line_starts: Vec<usize>,
}

impl SpanIndex {
    /// Indexes a document parsed from `text`.
    pub fn new(doc: &ImDocument<&str>, text: &str) -> SpanIndex {
        let mut entries = Vec::new();
        walk_table(&KeyPath::default(), doc.as_table(), &mut entries);
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let mut by_path: Vec<u32> = (0..entries.len() as u32).collect();
        by_path.sort_unstable_by(|&a, &b| {
            let (pa, sa) = &entries[a as usize];
            let (pb, sb) = &entries[b as usize];
            pa.cmp(pb).then(sa.start.cmp(&sb.start))
        });
        SpanIndex {
            entries,
            by_path,
            line_starts,
        }
    }

    /// The last line holding a key, value or table header (1 for an empty document).
    pub fn last_line(&self) -> usize {
        self.entries
            .iter()
            .map(|(_, s)| s.end)
            .max()
            .map_or(1, |end| self.line_of_offset(end.saturating_sub(1)))
    }

    /// The 1-based line holding byte `offset` (clamped to the text).
    pub fn line_of_offset(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).max(1)
    }

    /// The innermost key, value or table whose span contains `span`.
    pub fn path_at(&self, span: &Range<usize>) -> Option<KeyPath> {
        self.entries
            .iter()
            .filter(|(_, s)| {
                s.start <= span.start
                    && (span.end <= s.end || (span.is_empty() && span.start < s.end))
            })
            .min_by_key(|(p, s)| (s.len(), usize::MAX - p.0.len()))
            .map(|(p, _)| p.clone())
    }

    /// The first byte of `path` in the document (its key, or its table header), if present.
    pub fn offset_of(&self, path: &KeyPath) -> Option<usize> {
        // The first of the entries for `path` has the smallest start (sorted that way).
        let i = self
            .by_path
            .partition_point(|&e| self.entries[e as usize].0 < *path);
        let &e = self.by_path.get(i)?;
        let (p, s) = &self.entries[e as usize];
        (p == path).then_some(s.start)
    }

    /// The line of `path`, or of its nearest ancestor present in the document.
    pub fn line_of_path(&self, path: &KeyPath) -> Option<usize> {
        let mut p = path.clone();
        loop {
            if let Some(o) = self.offset_of(&p) {
                return Some(self.line_of_offset(o));
            }
            if p.0.is_empty() {
                return None;
            }
            p = p.parent();
        }
    }

    /// Whether `path` itself is present in the document.
    pub fn contains(&self, path: &KeyPath) -> bool {
        self.offset_of(path).is_some()
    }
}

fn walk_table(path: &KeyPath, t: &dyn TableLike, out: &mut Vec<(KeyPath, Range<usize>)>) {
    for (k, item) in t.iter() {
        let p = path.key(k);
        if let Some(span) = t.key(k).and_then(|key| key.span()) {
            out.push((p.clone(), span));
        }
        walk_item(&p, item, out);
    }
}

fn walk_item(path: &KeyPath, item: &Item, out: &mut Vec<(KeyPath, Range<usize>)>) {
    if let Some(span) = item.span() {
        out.push((path.clone(), span));
    }
    match item {
        Item::None => {}
        Item::Value(v) => walk_value(path, v, out),
        Item::Table(t) => walk_table(path, t, out),
        Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                let p = path.index(i);
                if let Some(span) = t.span() {
                    out.push((p.clone(), span));
                }
                walk_table(&p, t, out);
            }
        }
    }
}

fn walk_value(path: &KeyPath, v: &Value, out: &mut Vec<(KeyPath, Range<usize>)>) {
    match v {
        Value::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                let p = path.index(i);
                if let Some(span) = e.span() {
                    out.push((p.clone(), span));
                }
                walk_value(&p, e, out);
            }
        }
        Value::InlineTable(t) => walk_table(path, t, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The sorted index answers exactly as a scan of every entry would: the smallest start
    // among a path's entries (a key is indexed at its key and at its value or table header),
    // and nothing for an absent path.
    #[test]
    fn offset_of_equals_a_scan_of_every_entry() {
        let text = "[simulation]\nduration = \"10s\"\n\n[nodes.a]\n[nodes.b]\nroutes = [{ to = \"a\" }, { to = \"b\" }]\n\n[links.ab]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n\n[[extra]]\nx = 1\n[[extra]]\nx = 2\n";
        let doc = ImDocument::parse(text).unwrap();
        let ix = SpanIndex::new(&doc, text);
        assert!(ix.entries.len() > 15, "{}", ix.entries.len());
        for (p, _) in &ix.entries {
            let scan = ix
                .entries
                .iter()
                .filter(|(q, _)| q == p)
                .map(|(_, s)| s.start)
                .min();
            assert_eq!(ix.offset_of(p), scan, "{p}");
            assert!(ix.contains(p));
        }
        let absent = KeyPath::keys(&["links", "ab", "delay"]);
        assert_eq!(ix.offset_of(&absent), None);
        assert!(!ix.contains(&absent));
        assert_eq!(
            ix.line_of_path(&absent),
            Some(8),
            "falls back to [links.ab]"
        );
        let second = KeyPath::keys(&["extra"]).index(1).key("x");
        assert_eq!(ix.line_of_path(&second), Some(16));
    }
}
