//! # packetsim
//!
//! A packet-level discrete-event network simulator for transport-protocol research.
//!
//! Layers, each a folder; a layer may use the layers listed before it, never one after it:
//!
//! ```text
//! packetsim-kernel   time, event queue, timers, arenas, RNG streams, statistics (own crate)
//! ids, units         typed ids; quantities with units as scenarios write them
//! packet             Packet and typed headers (TCP, SCTP, UDP, control), wire lengths,
//!                    sequence numbers
//! app                applications (bulk, file, CBR, frame sources, on-off) behind one
//!                    interface the transports use
//! transport          sans-IO endpoints: TCP (sender, receiver, cc, recovery), SCTP, UDP;
//!                    congestion controls are a registry (`transport::tcp::cc`)
//! queue              queue disciplines (DropTail; the registry of RED, RIO, CoDel, FQ-CoDel,
//!                    PIE, head-drop; class queues under WRR or priority), meters and markers;
//!                    drop reasons; queue statistics
//! net                transmitters (lazy FIFO, pull and slotted cell modes; rate changes,
//!                    outage policies, hooks), forwarding (static table, run-time host
//!                    routes), node elements, routing, per-packet host processing
//! wireless           radio links: rate cycles, a two-state rate process (node element)
//! wifi               an 802.11 channel: the DCF MAC (sans-IO), the DSSS PHY's timing, the shared
//!                    medium with collisions, propagation (issue 34)
//! atm                ATM cells, AAL5, the cell switch (plain, PPD, EPD), the cell port that is
//!                    a slotted link direction
//! trace              packet captures (pcap, bytes synthesised from typed headers), event trace
//! world              the assembled simulation: dispatch, agent and element adapters, flows,
//!                    sampling
//! mobility           micro-mobility (spec 5): the registry of mobility protocols (Cellular
//!                    IP, HAWAII, Mobile IP, one file each), the handoff model, node elements,
//!                    the access-domain tree on a point-to-point or 802.11 radio
//! scenario           TOML schema, validation with file/line/key errors, builder
//! experiment         sweeps, replications, seeds, confidence intervals, results store
//! report             summaries, CSV/JSON writers, SVG figures, HTML pages
//! studies            reproductions of the five published studies, each a folder on one
//!                    driver (`studies::shape`): grids, typed scenarios, measurements, claims
//!                    as data, figures, reports
//! ```
//!
//! `app` comes before `transport`: a transport holds its application and asks it what to
//! send, so the interface must be usable from transport (see `app`'s module doc).
//!
//! `docs/architecture.md` in the repository describes the layers, the seams where new
//! behaviour plugs in (endpoints, transmitters, queue disciplines, forwarding, node
//! elements, applications), a packet's path through a run, a study's path from its grid to
//! its report, and where a new kind goes; `docs/extending.md` walks through adding one.
//!
//! The kinds a scenario names are registries, one file and one row each: link kinds
//! (`scenario/link/`), flow kinds (`scenario/flow/`), queue disciplines
//! (`queue::queue_disciplines!`, a file in `queue/`) and congestion controls
//! (`transport::tcp::cc::congestion_controls!`, a file in `transport/tcp/cc/`). The last two
//! generate their closed enums from the table, so the packet path keeps enum dispatch.

pub use packetsim_kernel as kernel;

pub mod app;
pub mod atm;
pub mod bench;
pub mod experiment;
pub mod ids;
pub mod mobility;
pub mod net;
pub mod packet;
pub mod queue;
pub mod report;
pub mod scenario;
pub mod studies;
pub mod trace;
pub mod transport;
pub mod units;
pub mod wifi;
pub mod wireless;
pub mod world;
