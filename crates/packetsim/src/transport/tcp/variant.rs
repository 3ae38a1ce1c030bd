//! The TCP variants a scenario can name. Each pairs a congestion control with a loss
//! recovery (see `cc/` and `recovery/`): the RFC 5681 family here, every other variant a row
//! of the registry `cc::congestion_controls!` (one file in `cc/` and one row each); the
//! `[tcp]` key `loss_recovery` replaces the row's recovery (e.g. CUBIC with RFC 6675 SACK
//! recovery, ns-3's and Linux's pairing).

use super::cc::{congestion_controls, AnyCc, Controller, Reno};
use super::recovery::{
    AnyRecovery, NewReno, PrrRecovery, RenoRecovery, Sack1Recovery, SackRecovery, Tahoe,
};
use super::{LossRecoveryKind, SackRecoveryKind, TcpConfig};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Generates [`Variant`] from the rows of `cc::congestion_controls!`: the four RFC 5681-family
/// variants, which share the stateless Reno controller, then one variant per row.
macro_rules! variants {
    ( $( $(#[$m:meta])* $V:ident $file:ident => $C0:ident $(, $C:ident)* ; )* ) => {
        /// A TCP variant name as written in scenarios.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Variant {
            /// Slow start, congestion avoidance, fast retransmit, no fast recovery (back to 1
            /// MSS).
            Tahoe,
            /// Fast retransmit and fast recovery (RFC 5681).
            Reno,
            /// Reno with partial-ACK handling (RFC 6582).
            NewReno,
            /// SACK-based loss recovery (RFC 2018 blocks, RFC 6675 scoreboard and pipe).
            Sack,
            $( $(#[$m])* $V, )*
        }

        impl Variant {
            /// How many variants a scenario can name.
            const COUNT: usize = 4 + [$(Variant::$V),*].len();

            /// Every variant a scenario can name, in a fixed order (the classic four, then the
            /// registry's rows).
            pub const EVERY: [Variant; Variant::COUNT] = [
                Variant::Tahoe,
                Variant::Reno,
                Variant::NewReno,
                Variant::Sack,
                $( Variant::$V, )*
            ];

            /// The loss recovery of this variant's row: the variant table.
            pub fn loss_recovery(self) -> LossRecoveryKind {
                match self {
                    Variant::Tahoe => LossRecoveryKind::Tahoe,
                    Variant::Reno => LossRecoveryKind::Reno,
                    Variant::NewReno => LossRecoveryKind::NewReno,
                    Variant::Sack => LossRecoveryKind::Sack,
                    $( Variant::$V => <super::cc::$file::$C0 as Controller>::RECOVERY, )*
                }
            }

            /// The congestion controller of this variant, for a sender configured by `cfg`.
            fn controller(self, cfg: &TcpConfig) -> AnyCc {
                let _ = cfg;
                match self {
                    Variant::Tahoe | Variant::Reno | Variant::NewReno | Variant::Sack => {
                        AnyCc::Reno(Reno)
                    }
                    $( Variant::$V => {
                        AnyCc::stateful(<super::cc::$file::$C0 as Controller>::build(cfg))
                    } )*
                }
            }

            /// The scenario spelling.
            pub fn name(self) -> &'static str {
                match self {
                    Variant::Tahoe => "tahoe",
                    Variant::Reno => "reno",
                    Variant::NewReno => "newreno",
                    Variant::Sack => "sack",
                    $( Variant::$V => stringify!($file), )*
                }
            }
        }
    };
}

congestion_controls!(variants);

impl Variant {
    /// The four RFC 5681-family variants, in a fixed order (the studies iterate these; they
    /// predate CUBIC, which is left out so that their outputs stay as they were).
    pub const ALL: [Variant; 4] = [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
    ];

    /// The (congestion control, loss recovery) pair of this variant, the recovery replaced
    /// by `cfg.loss_recovery` when that is set.
    pub(crate) fn build(self, cfg: &TcpConfig) -> (AnyCc, AnyRecovery) {
        let rec = match cfg.loss_recovery.unwrap_or(self.loss_recovery()) {
            LossRecoveryKind::Tahoe => AnyRecovery::Tahoe(Tahoe),
            LossRecoveryKind::Reno => AnyRecovery::Reno(RenoRecovery),
            LossRecoveryKind::NewReno => AnyRecovery::NewReno(NewReno::new(
                cfg.newreno_partial_ack_timer,
                cfg.newreno_full_ack,
            )),
            LossRecoveryKind::Sack => match cfg.sack_recovery {
                SackRecoveryKind::Rfc6675 => {
                    AnyRecovery::Sack(SackRecovery::new(cfg.sack_partial_ack_timer))
                }
                SackRecoveryKind::Sack1 => AnyRecovery::Sack1(Sack1Recovery::default()),
                SackRecoveryKind::Prr => {
                    AnyRecovery::Prr(Box::new(PrrRecovery::new(cfg.sack_partial_ack_timer)))
                }
            },
        };
        (self.controller(cfg), rec)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::super::cc::{scalable::Scalable, Bbr, CongestionControl};
    use super::*;
    use serde::de::IntoDeserializer;

    // The generated enum: every variant reads back from its own spelling (serde's
    // `rename_all = "lowercase"` of the row's variant must equal the row's file name), and a
    // row builds its own controller, named as the variant.
    #[test]
    fn every_variant_reads_back_from_its_name_and_builds_its_row() {
        let cfg = TcpConfig::default();
        for v in Variant::EVERY {
            let de: serde::de::value::StrDeserializer<serde::de::value::Error> =
                v.name().into_deserializer();
            assert_eq!(Variant::deserialize(de), Ok(v));
            let (cc, _) = v.build(&cfg);
            let classic = Variant::ALL.contains(&v);
            assert_eq!(cc.name(), if classic { "reno" } else { v.name() }, "{v}");
        }
        assert_eq!(Variant::EVERY.len(), 9);
    }

    // Type-specific state through a downcast, not an accessor per controller.
    #[test]
    fn a_controller_is_reached_by_its_type() {
        let cfg = TcpConfig::default();
        let (cc, _) = Variant::Scalable.build(&cfg);
        assert_eq!(cc.controller::<Scalable>(), Some(&Scalable::default()));
        assert!(cc.controller::<Bbr>().is_none());
        let (cc, _) = Variant::Bbr.build(&cfg);
        assert!(cc.as_bbr().is_some() && cc.controller::<Scalable>().is_none());
        let (cc, _) = Variant::NewReno.build(&cfg);
        assert!(cc.controller::<super::super::cc::Reno>().is_some());
    }
}
