//! What link and flow kinds share: a registry row's name and keys ([`KindRow`]), the check
//! that every key of a table is either common to its section or one of its kind's own
//! ([`Ctx::pick_kind`]), and [`fields_of`], which reads a key list off a serde struct.
//!
//! Why not serde's `#[serde(tag = "kind")]` or `flatten`: both buffer the table and lose the
//! TOML spans that locate an error, and `flatten` does not combine with
//! `deny_unknown_fields`. Instead the common keys are deserialized with the whole file (step
//! 3, which skips `kind` and the kinds' keys and rejects any other: `schema::KindKeys`), and
//! a kind's own keys are cut out of the effective document as a `toml_edit` table,
//! spans kept, and deserialized by the kind's own struct in step 4.

use super::error::ScenarioError;
use super::load::Ctx;
use super::locate::KeyPath;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;
use toml_edit::{InlineTable, Item};

/// One row of a kind registry (`flow::FLOW_KINDS`, `link::LINK_KINDS`).
pub(crate) trait KindRow: 'static {
    /// The value of `kind = "..."` that selects this row.
    fn name(&self) -> &'static str;
    /// The keys this kind adds to its section's common keys, in declaration order.
    fn keys(&self) -> &'static [&'static str];
}

/// The field names of a derived `Deserialize` struct, in declaration order (serde passes
/// them to `Deserializer::deserialize_struct`; this deserializer records them and stops).
/// Empty for a type that is not a derived struct.
pub(crate) fn fields_of<T: DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("field names recorded")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    struct Spy<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Spy<'_> {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            *self.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Spy(&mut fields));
    fields
}

/// Backquoted and comma-separated: `` `a`, `b` ``.
fn quoted(keys: impl IntoIterator<Item = impl fmt::Display>) -> String {
    keys.into_iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Ctx<'_> {
    /// Picks the row that the `kind` key of the table at `path` names (the first row when
    /// `kind` is absent), checks every other key of the table is in `common` or is the
    /// kind's own, and returns the row with the kind's own keys (spans kept for
    /// [`Ctx::located`]). `what` is the section's item in messages: "flow", "link".
    pub(super) fn pick_kind<'r, R: KindRow>(
        &self,
        path: &KeyPath,
        what: &str,
        item: Option<&Item>,
        common: &[&str],
        rows: &'r [R],
    ) -> Result<(&'r R, InlineTable), ScenarioError> {
        let table = item.and_then(Item::as_table_like);
        let kind = table.and_then(|t| t.get("kind"));
        let row = match kind {
            None => &rows[0],
            Some(v) => {
                let known = if rows.len() == 1 {
                    format!("`{}`", rows[0].name())
                } else {
                    format!("one of {}", quoted(rows.iter().map(|r| r.name())))
                };
                let Some(s) = v.as_str() else {
                    let got = v.as_value().map_or_else(
                        || "a table".to_owned(),
                        |v| v.clone().decorated("", "").to_string(),
                    );
                    return Err(self.err(
                        &path.key("kind"),
                        format!("expected the {what} kind as a string, {known}; got {got}"),
                    ));
                };
                rows.iter().find(|r| r.name() == s).ok_or_else(|| {
                    self.err(
                        &path.key("kind"),
                        format!("unknown value `{s}`; expected {known}"),
                    )
                })?
            }
        };
        let mut own = InlineTable::new();
        let Some(table) = table else {
            return Ok((row, own));
        };
        let this = row.name();
        let is_common = |k: &str| k == "kind" || common.contains(&k);
        // Keys no kind reads, in file order (step 3 rejects them already: `schema::KindKeys`).
        for (k, _) in table.iter() {
            if !is_common(k) && !rows.iter().any(|r| r.keys().contains(&k)) {
                let allowed = common
                    .iter()
                    .copied()
                    .chain(["kind"])
                    .chain(row.keys().iter().copied());
                return Err(self.err(
                    &path.key(k),
                    format!("unknown key `{k}`; expected one of {}", quoted(allowed)),
                ));
            }
        }
        // Keys of other kinds, in registry order.
        for other in rows {
            for &k in other.keys() {
                if table.contains_key(k) && !row.keys().contains(&k) && !is_common(k) {
                    let owners: Vec<&str> = rows
                        .iter()
                        .filter(|r| r.keys().contains(&k))
                        .map(|r| r.name())
                        .collect();
                    return Err(self.err(
                        &path.key(k),
                        format!(
                            "`{k}` is only allowed on {} {what}s; this {what} has kind = \
                             \"{this}\"",
                            owners.join(" or ")
                        ),
                    ));
                }
            }
        }
        for (k, v) in table.iter() {
            if row.keys().contains(&k) {
                let key = table.key(k).expect("an iterated key exists");
                if let Ok(v) = v.clone().into_value() {
                    own.insert_formatted(key, v);
                }
            }
        }
        Ok((row, own))
    }

    /// Deserializes a kind's own keys (from [`Ctx::pick_kind`]) with its struct `T`; an
    /// error names the key its span points at, or the table at `path`.
    pub(super) fn kind_keys<T: DeserializeOwned>(
        &self,
        path: &KeyPath,
        own: &InlineTable,
    ) -> Result<T, ScenarioError> {
        use serde::de::IntoDeserializer;
        let d = toml_edit::Value::InlineTable(own.clone()).into_deserializer();
        T::deserialize(d).map_err(|e| self.located(e.span(), e.message(), path))
    }
}
