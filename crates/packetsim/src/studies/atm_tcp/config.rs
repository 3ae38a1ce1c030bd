//! A point's configuration (spec 1 §3.1 and §3.2) and a run's statistics.

pub use crate::atm::sim::{AtmNetConfig, AtmRunResult, ConnResult, TimeBase, TracePoint};
