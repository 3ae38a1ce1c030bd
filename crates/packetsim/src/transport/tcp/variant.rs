//! The TCP variants a scenario can name. Each is a row pairing a congestion control with a
//! loss recovery (see `cc/` and `recovery/`); the `[tcp]` key `loss_recovery` replaces the
//! row's recovery (e.g. CUBIC with RFC 6675 SACK recovery, ns-3's and Linux's pairing).

use super::cc::{AnyCc, Bbr, Cubic, CubicNs3, Dctcp, Reno, StatefulCc, Vegas};
use super::recovery::{
    AnyRecovery, NewReno, PrrRecovery, RenoRecovery, Sack1Recovery, SackRecovery, Tahoe,
};
use super::{
    BbrRecovery, BbrSendQuantum, BbrTimeoutFullBw, CubicModel, LossRecoveryKind, SackRecoveryKind,
    TcpConfig,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A TCP variant name as written in scenarios.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Slow start, congestion avoidance, fast retransmit, no fast recovery (back to 1 MSS).
    Tahoe,
    /// Fast retransmit and fast recovery (RFC 5681).
    Reno,
    /// Reno with partial-ACK handling (RFC 6582).
    NewReno,
    /// SACK-based loss recovery (RFC 2018 blocks, RFC 6675 scoreboard and pipe).
    Sack,
    /// CUBIC congestion control (RFC 9438) with NewReno loss recovery (RFC 6582).
    Cubic,
    /// DCTCP congestion control (RFC 8257) with NewReno loss recovery (RFC 6582); needs
    /// `ecn = true` and `ecn_echo = "per_segment"` (validated).
    Dctcp,
    /// BBR v1 (Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control-00) with
    /// pacing, and NewReno loss recovery (RFC 6582).
    Bbr,
    /// TCP Vegas (Brakmo & Peterson 1995; ns-2 `tcp-vegas.cc`: α = 1, β = 3, γ = 1) with
    /// NewReno loss recovery (RFC 6582).
    Vegas,
}

impl Variant {
    /// The four RFC 5681-family variants, in a fixed order (the studies iterate these; they
    /// predate CUBIC, which is left out so that their outputs stay as they were).
    pub const ALL: [Variant; 4] = [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
    ];

    /// Every variant a scenario can name, in a fixed order.
    pub const EVERY: [Variant; 8] = [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
        Variant::Cubic,
        Variant::Dctcp,
        Variant::Bbr,
        Variant::Vegas,
    ];

    /// The loss recovery of this variant's row: the variant table.
    pub fn loss_recovery(self) -> LossRecoveryKind {
        match self {
            Variant::Tahoe => LossRecoveryKind::Tahoe,
            Variant::Reno => LossRecoveryKind::Reno,
            Variant::NewReno | Variant::Cubic | Variant::Dctcp | Variant::Bbr | Variant::Vegas => {
                LossRecoveryKind::NewReno
            }
            Variant::Sack => LossRecoveryKind::Sack,
        }
    }

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
        let cc = match self {
            Variant::Cubic => AnyCc::stateful(match cfg.cubic_model {
                CubicModel::Rfc9438 => StatefulCc::Cubic(Cubic::default()),
                CubicModel::Ns3 => StatefulCc::CubicNs3(CubicNs3::default()),
            }),
            Variant::Dctcp => AnyCc::stateful(StatefulCc::Dctcp(Dctcp::new(cfg.dctcp_g))),
            Variant::Bbr => AnyCc::stateful(StatefulCc::Bbr(
                Bbr::new(cfg.initial_cwnd.saturating_mul(cfg.mss))
                    .with_options(
                        cfg.bbr_send_quantum == BbrSendQuantum::Segment,
                        cfg.bbr_inflight_quanta,
                    )
                    .with_timeout_reset(cfg.bbr_timeout_full_bw == BbrTimeoutFullBw::Reset)
                    .with_linux_recovery(cfg.bbr_recovery == BbrRecovery::Linux),
            )),
            Variant::Vegas => AnyCc::stateful(StatefulCc::Vegas(Vegas::default())),
            Variant::Tahoe | Variant::Reno | Variant::NewReno | Variant::Sack => AnyCc::Reno(Reno),
        };
        (cc, rec)
    }

    /// The scenario spelling.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
            Variant::Cubic => "cubic",
            Variant::Dctcp => "dctcp",
            Variant::Bbr => "bbr",
            Variant::Vegas => "vegas",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
