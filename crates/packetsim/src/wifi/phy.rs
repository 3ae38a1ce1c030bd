//! The 802.11b DSSS PHY's timing: slot, SIFS, DIFS, EIFS and the airtime of each frame type.
//!
//! A frame on the air is the PLCP preamble and header (long preamble: 144 + 48 bits sent at
//! 1 Mb/s, 192 us, IEEE 802.11-1999 §15.2.3) followed by the MAC frame at its rate: control
//! frames (RTS, CTS, ACK) at the basic rate, data frames at the data rate. This is ns-2.35's
//! `Mac802_11::txtime(bytes, rate)` split (PLCP at `PLCPDataRate`, the rest at the given
//! rate). MAC frame lengths are those of ns-2.35's `mac-802_11.h`: a data frame carries 24
//! bytes of header and a 4-byte FCS around its payload; RTS is 20 bytes, CTS and ACK 14.

use packetsim_kernel::{Dur, Rate};

/// MAC header and FCS bytes around a data frame's payload (24 + 4).
pub const DATA_OVERHEAD_BYTES: u32 = 28;
/// An RTS frame's length in bytes.
pub const RTS_BYTES: u32 = 20;
/// A CTS frame's length in bytes.
pub const CTS_BYTES: u32 = 14;
/// An ACK frame's length in bytes.
pub const ACK_BYTES: u32 = 14;

/// The 802.11b rates (IEEE 802.11b-1999 §18.1: 1, 2, 5.5 and 11 Mb/s).
pub const RATES_BPS: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// PHY timing and rates of one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhyConfig {
    /// aSlotTime (DSSS: 20 us).
    pub slot: Dur,
    /// aSIFSTime (DSSS: 10 us).
    pub sifs: Dur,
    /// PLCP preamble plus header (long preamble: 192 us).
    pub plcp: Dur,
    /// The rate of control frames (RTS, CTS, ACK); ns-2.35's `basicRate_` (default 1 Mb/s).
    pub basic_rate: Rate,
    /// The rate of data frames; ns-2.35's `dataRate_` (default 1 Mb/s).
    pub data_rate: Rate,
    /// The longest propagation delay the MAC allows for in its timeouts (ns-2.35's
    /// `DSSS_MaxPropagationDelay`, 2 us). The channel itself propagates instantly.
    pub max_propagation: Dur,
}

impl Default for PhyConfig {
    fn default() -> Self {
        PhyConfig {
            slot: Dur::from_micros(20),
            sifs: Dur::from_micros(10),
            plcp: Dur::from_micros(192),
            basic_rate: Rate::mbps(1),
            data_rate: Rate::mbps(1),
            max_propagation: Dur::from_micros(2),
        }
    }
}

impl PhyConfig {
    /// DIFS = SIFS + 2 slots (802.11-1999 §9.2.10): 50 us for DSSS.
    pub fn difs(&self) -> Dur {
        self.sifs + self.slot * 2
    }

    /// EIFS = SIFS + DIFS + an ACK at the lowest rate, PLCP included (802.11-1999 §9.2.10;
    /// ns-2.35 `PHY_MIB::getEIFS`): 364 us for DSSS.
    pub fn eifs(&self) -> Dur {
        self.sifs + self.difs() + self.plcp + Rate::mbps(1).tx_time(ACK_BYTES)
    }

    /// Airtime of a data frame carrying `payload` bytes.
    pub fn data_airtime(&self, payload: u32) -> Dur {
        self.plcp + self.data_rate.tx_time(payload + DATA_OVERHEAD_BYTES)
    }

    /// Airtime of an ACK (basic rate): 304 us at 1 Mb/s.
    pub fn ack_airtime(&self) -> Dur {
        self.plcp + self.basic_rate.tx_time(ACK_BYTES)
    }

    /// Airtime of an RTS (basic rate): 352 us at 1 Mb/s.
    pub fn rts_airtime(&self) -> Dur {
        self.plcp + self.basic_rate.tx_time(RTS_BYTES)
    }

    /// Airtime of a CTS (basic rate): 304 us at 1 Mb/s.
    pub fn cts_airtime(&self) -> Dur {
        self.plcp + self.basic_rate.tx_time(CTS_BYTES)
    }

    /// Whether `rate` is one of the 802.11b rates.
    pub fn is_dsss_rate(rate: Rate) -> bool {
        RATES_BPS.contains(&rate.as_bps())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 802.11-1999 §15.3.3 (DSSS PHY characteristics) and §9.2.10 (DIFS, EIFS).
    #[test]
    fn dsss_timing_matches_the_standard() {
        let p = PhyConfig::default();
        assert_eq!(p.difs(), Dur::from_micros(50));
        assert_eq!(p.eifs(), Dur::from_micros(364));
        assert_eq!(p.ack_airtime(), Dur::from_micros(304));
        assert_eq!(p.rts_airtime(), Dur::from_micros(352));
        assert_eq!(p.cts_airtime(), Dur::from_micros(304));
        // 1000 payload bytes + 28 at 1 Mb/s = 8224 us, plus 192 us of PLCP.
        assert_eq!(p.data_airtime(1000), Dur::from_micros(8416));
        let fast = PhyConfig {
            data_rate: Rate::mbps(11),
            ..p
        };
        // 1028 bytes at 11 Mb/s = 747.636... us, rounded up to the nanosecond.
        assert_eq!(fast.data_airtime(1000), Dur::from_nanos(192_000 + 747_637));
        assert!(PhyConfig::is_dsss_rate(Rate::bps(5_500_000)));
        assert!(!PhyConfig::is_dsss_rate(Rate::mbps(54)));
    }
}
