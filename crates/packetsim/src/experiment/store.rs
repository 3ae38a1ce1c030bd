//! The results store: one SQLite file, `DIR/results.sqlite`, in WAL mode.
//!
//! Schema (version 1, kept in `PRAGMA user_version`):
//!
//! ```sql
//! runs(experiment_key, point_key, replication,         -- primary key
//!      seed TEXT,            -- decimal u64 (SQLite integers are signed)
//!      params_json,          -- [[path, value], ...] in parameter order
//!      summary_json,         -- the runner's free-form JSON summary
//!      metrics_json,         -- [[name, value|null], ...], a readable copy
//!      code_version,         -- experiment::code_version(): package version + executable hash
//!      created_unix_s)
//! run_metrics(experiment_key, point_key, replication, ordinal,  -- primary key
//!      name, value REAL)     -- NULL = not available; what aggregation reads
//! ```
//!
//! `point_key` is [`GridPoint::key`]: the assignments sorted by path, as JSON. Metric values are
//! read back from `run_metrics` (IEEE doubles, bit-exact) rather than from `metrics_json`, whose
//! text round trip through serde_json's default float parser is not guaranteed exact.
//!
//! A run's two inserts are one transaction, committed before [`ResultsStore::insert_run`]
//! returns: a killed process leaves either the whole run or nothing. `synchronous = NORMAL`
//! (WAL) makes commits survive a process kill; a power loss may drop the last few commits,
//! which a resumed sweep then recomputes. A run already stored is left as it is (`INSERT OR
//! IGNORE`), so two sweeps racing on one directory cannot corrupt it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

use super::grid::GridPoint;
use super::ExperimentError;

/// The store's file name inside the output directory.
pub const STORE_FILE: &str = "results.sqlite";

/// The schema version this code writes and reads.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    experiment_key TEXT NOT NULL,
    point_key      TEXT NOT NULL,
    replication    INTEGER NOT NULL,
    seed           TEXT NOT NULL,
    params_json    TEXT NOT NULL,
    summary_json   TEXT NOT NULL,
    metrics_json   TEXT NOT NULL,
    code_version   TEXT NOT NULL,
    created_unix_s INTEGER NOT NULL,
    PRIMARY KEY (experiment_key, point_key, replication)
);
CREATE TABLE IF NOT EXISTS run_metrics (
    experiment_key TEXT NOT NULL,
    point_key      TEXT NOT NULL,
    replication    INTEGER NOT NULL,
    ordinal        INTEGER NOT NULL,
    name           TEXT NOT NULL,
    value          REAL,
    PRIMARY KEY (experiment_key, point_key, replication, ordinal)
);
";

/// Metric name → value (`None` = not available), in the runner's order.
type Metrics = Vec<(String, Option<f64>)>;

/// One stored run, as loaded back from the store.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRun {
    /// [`GridPoint::key`] of the run's point.
    pub point_key: String,
    /// `(path, value)` in the parameter order of the sweep that computed it.
    pub params: Vec<(String, String)>,
    /// Replication number, from 0.
    pub replication: u32,
    /// The seed the run was given.
    pub seed: u64,
    /// The runner's JSON summary.
    pub summary_json: String,
    /// Metric name → value (`None` = not available), in the order the runner gave them.
    pub metrics: Vec<(String, Option<f64>)>,
    /// [`super::code_version`] of the code that computed it.
    pub code_version: String,
    /// When it was stored, seconds since the Unix epoch.
    pub created_unix_s: i64,
}

/// An open results store (one connection; wrap it in a `Mutex` to share between threads).
#[derive(Debug)]
pub struct ResultsStore {
    conn: Connection,
    path: PathBuf,
}

/// Stores one run once: a run already present (same experiment, point and replication) is
/// left as it is, and the caller learns so from the count of inserted rows.
const INSERT_RUN: &str = "INSERT OR IGNORE INTO runs (experiment_key, point_key, replication, \
     seed, params_json, summary_json, metrics_json, code_version, created_unix_s) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

/// The columns of each table, in order, as [`SCHEMA`] creates them.
const TABLES: [(&str, &[&str]); 2] = [
    (
        "runs",
        &[
            "experiment_key",
            "point_key",
            "replication",
            "seed",
            "params_json",
            "summary_json",
            "metrics_json",
            "code_version",
            "created_unix_s",
        ],
    ),
    (
        "run_metrics",
        &[
            "experiment_key",
            "point_key",
            "replication",
            "ordinal",
            "name",
            "value",
        ],
    ),
];

/// Checks that an existing store has every table of [`SCHEMA`] with its columns.
fn check_schema(conn: &Connection, path: &Path) -> Result<(), ExperimentError> {
    let corrupt = |detail: String| ExperimentError::StoreCorrupt {
        path: path.to_path_buf(),
        detail: format!(
            "{detail}: the store is damaged and its runs cannot be trusted; move it away to \
             recompute them"
        ),
    };
    for (table, want) in TABLES {
        let cols: Result<Vec<String>, rusqlite::Error> = conn
            .prepare(&format!("PRAGMA table_info({table})"))
            .and_then(|mut st| {
                st.query_map([], |r| r.get::<_, String>(1))?
                    .collect::<Result<Vec<String>, _>>()
            });
        let cols = cols.map_err(|e| corrupt(format!("reading table {table}: {e}")))?;
        if cols.is_empty() {
            return Err(corrupt(format!("table {table} is missing")));
        }
        if cols != want {
            return Err(corrupt(format!(
                "table {table} has columns ({}), expected ({})",
                cols.join(", "),
                want.join(", ")
            )));
        }
    }
    Ok(())
}

impl ResultsStore {
    /// Opens (creating if needed) `dir/results.sqlite`, creating `dir` too.
    pub fn open(dir: &Path) -> Result<Self, ExperimentError> {
        std::fs::create_dir_all(dir).map_err(|source| ExperimentError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(STORE_FILE);
        let open_err = |source| ExperimentError::StoreOpen {
            path: path.clone(),
            source,
        };
        let conn = Connection::open(&path).map_err(open_err)?;
        conn.busy_timeout(Duration::from_secs(30))
            .map_err(open_err)?;
        // journal_mode returns a row, so it is queried rather than executed.
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(open_err)?;
        debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
        conn.execute_batch("PRAGMA synchronous = NORMAL;")
            .map_err(open_err)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(open_err)?;
        if version > SCHEMA_VERSION {
            return Err(ExperimentError::StoreCorrupt {
                path,
                detail: format!(
                    "schema version {version} is newer than this packetsim understands \
                     ({SCHEMA_VERSION})"
                ),
            });
        }
        // Issue 38: a store that had lost its run_metrics table was silently given an empty
        // one, and a resumed sweep wrote a header-only results.csv. A store with any of the
        // tables must have all of them, with their columns.
        let present: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' \
                 AND name IN ('runs', 'run_metrics')",
                [],
                |r| r.get(0),
            )
            .map_err(open_err)?;
        if present > 0 || version == SCHEMA_VERSION {
            check_schema(&conn, &path)?;
        }
        conn.execute_batch(SCHEMA).map_err(open_err)?;
        conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
            .map_err(open_err)?;
        Ok(ResultsStore { conn, path })
    }

    /// The store file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql_err(&self) -> impl Fn(rusqlite::Error) -> ExperimentError + '_ {
        |source| ExperimentError::Store {
            path: self.path.clone(),
            source,
        }
    }

    /// Stores one finished run and commits it before returning. A run already stored under
    /// the same (experiment, point, replication) is kept and this one ignored. Non-finite
    /// metric values are stored as not available (JSON and SQLite have no NaN).
    pub fn insert_run(
        &mut self,
        experiment_key: &str,
        point: &GridPoint,
        replication: u32,
        seed: u64,
        summary_json: &str,
        metrics: &[(String, Option<f64>)],
    ) -> Result<(), ExperimentError> {
        let path = self.path.clone();
        let err = move |source| ExperimentError::Store {
            path: path.clone(),
            source,
        };
        let point_key = point.key();
        let metrics: Vec<(&str, Option<f64>)> = metrics
            .iter()
            .map(|(n, v)| (n.as_str(), v.filter(|x| x.is_finite())))
            .collect();
        let metrics_json = serde_json::to_string(&metrics).expect("finite floats serialize");
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let tx = self.conn.transaction().map_err(&err)?;
        let inserted = tx
            .execute(
                INSERT_RUN,
                params![
                    experiment_key,
                    point_key,
                    replication,
                    seed.to_string(),
                    point.params_json(),
                    summary_json,
                    metrics_json,
                    super::code_version(),
                    created,
                ],
            )
            .map_err(&err)?;
        if inserted == 1 {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO run_metrics (experiment_key, point_key, replication, ordinal,
                         name, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(&err)?;
            for (ordinal, (name, value)) in metrics.iter().enumerate() {
                stmt.execute(params![
                    experiment_key,
                    point_key,
                    replication,
                    ordinal as i64,
                    name,
                    value
                ])
                .map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    /// Copies runs loaded from another store (a merge) in one transaction, keeping their
    /// seed, summary, metrics, code version and time. Runs already stored are left as they are.
    pub fn copy_runs(
        &mut self,
        experiment_key: &str,
        runs: &[StoredRun],
    ) -> Result<(), ExperimentError> {
        let path = self.path.clone();
        let err = move |source| ExperimentError::Store {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(&err)?;
        for r in runs {
            let metrics_json =
                serde_json::to_string(&r.metrics).expect("stored metrics are finite or null");
            let params_json = serde_json::to_string(&r.params).expect("strings serialize");
            let inserted = tx
                .execute(
                    INSERT_RUN,
                    params![
                        experiment_key,
                        r.point_key,
                        r.replication,
                        r.seed.to_string(),
                        params_json,
                        r.summary_json,
                        metrics_json,
                        r.code_version,
                        r.created_unix_s,
                    ],
                )
                .map_err(&err)?;
            if inserted == 1 {
                let mut stmt = tx
                    .prepare_cached(
                        "INSERT INTO run_metrics (experiment_key, point_key, replication,
                             ordinal, name, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    )
                    .map_err(&err)?;
                for (ordinal, (name, value)) in r.metrics.iter().enumerate() {
                    stmt.execute(params![
                        experiment_key,
                        r.point_key,
                        r.replication,
                        ordinal as i64,
                        name,
                        value
                    ])
                    .map_err(&err)?;
                }
            }
        }
        tx.commit().map_err(&err)
    }

    /// The runs already stored for `experiment_key`: (point key, replication) → seed.
    pub fn done_runs(
        &self,
        experiment_key: &str,
    ) -> Result<HashMap<(String, u32), u64>, ExperimentError> {
        let err = self.sql_err();
        let mut stmt = self
            .conn
            .prepare("SELECT point_key, replication, seed FROM runs WHERE experiment_key = ?1")
            .map_err(&err)?;
        let mut rows = stmt.query([experiment_key]).map_err(&err)?;
        let mut out = HashMap::new();
        while let Some(r) = rows.next().map_err(&err)? {
            let point_key: String = r.get(0).map_err(&err)?;
            let replication: u32 = r.get(1).map_err(&err)?;
            let seed: String = r.get(2).map_err(&err)?;
            let seed = seed.parse().map_err(|_| ExperimentError::StoreCorrupt {
                path: self.path.clone(),
                detail: format!("run {point_key} #{replication}: seed `{seed}`"),
            })?;
            out.insert((point_key, replication), seed);
        }
        Ok(out)
    }

    /// Whether one run is stored.
    pub fn is_done(
        &self,
        experiment_key: &str,
        point: &GridPoint,
        replication: u32,
    ) -> Result<bool, ExperimentError> {
        self.conn
            .query_row(
                "SELECT 1 FROM runs WHERE experiment_key = ?1 AND point_key = ?2
                 AND replication = ?3",
                params![experiment_key, point.key(), replication],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(self.sql_err())
    }

    /// Every run stored for `experiment_key`, ordered by point key then replication.
    pub fn load_runs(&self, experiment_key: &str) -> Result<Vec<StoredRun>, ExperimentError> {
        let err = self.sql_err();
        let corrupt = |detail: String| ExperimentError::StoreCorrupt {
            path: self.path.clone(),
            detail,
        };
        let mut metrics: HashMap<(String, u32), Metrics> = HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT point_key, replication, name, value FROM run_metrics
                     WHERE experiment_key = ?1 ORDER BY point_key, replication, ordinal",
                )
                .map_err(&err)?;
            let mut rows = stmt.query([experiment_key]).map_err(&err)?;
            while let Some(r) = rows.next().map_err(&err)? {
                let key: (String, u32) = (r.get(0).map_err(&err)?, r.get(1).map_err(&err)?);
                let name: String = r.get(2).map_err(&err)?;
                let value: Option<f64> = r.get(3).map_err(&err)?;
                metrics.entry(key).or_default().push((name, value));
            }
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT point_key, replication, seed, params_json, summary_json, code_version,
                        created_unix_s
                 FROM runs WHERE experiment_key = ?1 ORDER BY point_key, replication",
            )
            .map_err(&err)?;
        let mut rows = stmt.query([experiment_key]).map_err(&err)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(&err)? {
            let point_key: String = r.get(0).map_err(&err)?;
            let replication: u32 = r.get(1).map_err(&err)?;
            let seed: String = r.get(2).map_err(&err)?;
            let seed = seed
                .parse()
                .map_err(|_| corrupt(format!("run {point_key} #{replication}: seed `{seed}`")))?;
            let params_json: String = r.get(3).map_err(&err)?;
            let params = serde_json::from_str(&params_json).map_err(|e| {
                corrupt(format!("run {point_key} #{replication}: params_json: {e}"))
            })?;
            let metrics = metrics
                .remove(&(point_key.clone(), replication))
                .unwrap_or_default();
            out.push(StoredRun {
                params,
                replication,
                seed,
                summary_json: r.get(4).map_err(&err)?,
                metrics,
                code_version: r.get(5).map_err(&err)?,
                created_unix_s: r.get(6).map_err(&err)?,
                point_key,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::grid::{grid, Param};
    use crate::experiment::test_support::TempDir;

    #[test]
    fn store_insert_then_load_round_trips_exactly() {
        let dir = TempDir::new("store-roundtrip");
        let pts = grid(&["b=2,3".parse::<Param>().unwrap(), "a=x".parse().unwrap()]);
        let mut store = ResultsStore::open(dir.path()).unwrap();
        let metrics = vec![
            ("z".to_string(), Some(0.1 + 0.2)),
            ("gone".to_string(), None),
            ("nan".to_string(), Some(f64::NAN)),
            ("a".to_string(), Some(-1e-300)),
        ];
        store
            .insert_run("k", &pts[1], 4, u64::MAX, r#"{"ok":true}"#, &metrics)
            .unwrap();
        assert!(store.is_done("k", &pts[1], 4).unwrap());
        assert!(!store.is_done("k", &pts[0], 4).unwrap());
        assert!(!store.is_done("other", &pts[1], 4).unwrap());
        drop(store);

        let store = ResultsStore::open(dir.path()).unwrap();
        let runs = store.load_runs("k").unwrap();
        assert_eq!(runs.len(), 1);
        let r = &runs[0];
        assert_eq!(r.point_key, pts[1].key());
        assert_eq!(r.params, pts[1].assignments);
        assert_eq!((r.replication, r.seed), (4, u64::MAX));
        assert_eq!(r.summary_json, r#"{"ok":true}"#);
        assert_eq!(r.code_version, crate::experiment::code_version());
        let want = vec![
            ("z".to_string(), Some(0.1 + 0.2)),
            ("gone".to_string(), None),
            ("nan".to_string(), None),
            ("a".to_string(), Some(-1e-300)),
        ];
        assert_eq!(r.metrics, want);
        assert_eq!(
            store.done_runs("k").unwrap(),
            HashMap::from([((pts[1].key(), 4), u64::MAX)])
        );
        assert!(store.load_runs("other").unwrap().is_empty());
    }

    #[test]
    fn store_insert_twice_keeps_the_first() {
        let dir = TempDir::new("store-twice");
        let pt = &grid(&[])[0];
        let mut store = ResultsStore::open(dir.path()).unwrap();
        let m = |v| vec![("m".to_string(), Some(v))];
        store.insert_run("k", pt, 0, 1, "{}", &m(1.0)).unwrap();
        store.insert_run("k", pt, 0, 1, "{}", &m(2.0)).unwrap();
        let runs = store.load_runs("k").unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].metrics, m(1.0));
    }

    /// Issue 38: after losing its run_metrics table a store was reopened with an empty one
    /// and a resumed sweep wrote a header-only results.csv. Now the open is refused.
    #[test]
    fn a_store_missing_a_table_or_a_column_is_refused_when_opened() {
        let dir = TempDir::new("store-schema");
        let pts = grid(&["b=2,3".parse::<Param>().unwrap()]);
        let mut s = ResultsStore::open(dir.path()).unwrap();
        s.insert_run("k", &pts[0], 0, 1, "{}", &[("x".to_string(), Some(1.0))])
            .unwrap();
        drop(s);
        let path = dir.path().join(STORE_FILE);
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("DROP TABLE run_metrics;").unwrap();
        drop(conn);
        let e = ResultsStore::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("table run_metrics is missing"), "{e}");
        assert!(e.contains(STORE_FILE), "{e}");
        // Refused again: the open did not recreate the table.
        assert!(ResultsStore::open(dir.path()).is_err());

        let dir = TempDir::new("store-columns");
        drop(ResultsStore::open(dir.path()).unwrap());
        let conn = Connection::open(dir.path().join(STORE_FILE)).unwrap();
        conn.execute_batch("ALTER TABLE runs DROP COLUMN code_version;")
            .unwrap();
        drop(conn);
        let e = ResultsStore::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("table runs has columns"), "{e}");
        // A fresh store opens and reopens.
        let dir = TempDir::new("store-fresh");
        drop(ResultsStore::open(dir.path()).unwrap());
        drop(ResultsStore::open(dir.path()).unwrap());
    }

    /// Issue 38: a write that failed (a full disk) left its temporary. A rename onto a
    /// non-empty folder fails after the temporary is written: it must be removed.
    #[test]
    fn a_failed_atomic_write_leaves_no_temporary() {
        let dir = TempDir::new("tmp-cleanup");
        std::fs::create_dir_all(dir.path().join("x/sub")).unwrap();
        let e = crate::experiment::aggregate::write_atomic(&dir.path().join("x"), "data");
        assert!(e.is_err());
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec!["x".to_string()]);
    }

    #[test]
    fn store_open_unwritable_path_names_the_path() {
        let dir = TempDir::new("store-bad");
        // A directory where the database file should be.
        std::fs::create_dir_all(dir.path().join(STORE_FILE)).unwrap();
        let err = ResultsStore::open(dir.path()).unwrap_err();
        assert!(matches!(err, ExperimentError::StoreOpen { .. }), "{err:?}");
        assert!(err.to_string().contains(STORE_FILE), "{err}");
    }
}
