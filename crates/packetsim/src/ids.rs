//! Typed ids of the simulator's components. They index the [`crate::world::World`]'s arenas;
//! `Display` prints them as `node#3`, `link#0`, so traces and errors are readable.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $label:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            /// The index into the owning arena.
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($label, "#{}"), self.0)
            }
        }
    };
}

id_type!(/// A node (host or router).
    NodeId, "node");
id_type!(/// A full-duplex link.
    LinkId, "link");
id_type!(/// One direction of a link: its egress queue, transmitter and propagation.
    EgressId, "egress");
id_type!(/// A transport endpoint (TCP sender or receiver, UDP source or sink).
    AgentId, "agent");
id_type!(/// A flow as the scenario names it: one sender and one receiver.
    FlowId, "flow");
id_type!(/// A network address. A node owns one or more addresses (several when multihomed).
    Addr, "addr");
id_type!(/// A node element: a component at a node that belongs to no flow (a base station's
    /// link layer, a Cellular IP or HAWAII router agent, a home agent, an AAL5 adapter).
    ElementId, "element");
