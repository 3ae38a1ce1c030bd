//! TEMPORARY stand-in for `receiver.rs` (written by another helper), with exactly its
//! interface, so the endpoint can be exercised end to end. Delete when `receiver.rs` lands.
//! Minimal: TSN map, gap blocks, duplicates, delayed SACK (RFC 4960 §6.2), ordered delivery
//! per stream by SSN and unordered delivery on arrival.

use super::SctpConfig;
use crate::packet::{DataChunk, GapBlock, SackChunk, Tsn};
use packetsim_kernel::{Dur, Time};
use std::collections::BTreeMap;

/// One delivered chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Stream.
    pub stream: u16,
    /// Stream sequence number.
    pub ssn: u16,
    /// TSN.
    pub tsn: Tsn,
    /// User bytes.
    pub len: u32,
}

/// The receiving side of an association.
#[derive(Debug)]
pub(crate) struct Receiver {
    cum: Tsn,
    base: Tsn,
    next: u64,
    above: BTreeMap<u64, DataChunk>,
    dups: Vec<Tsn>,
    next_ssn: Vec<u16>,
    held: Vec<BTreeMap<u16, DataChunk>>,
    delivered: Vec<Delivery>,
    rwnd: u32,
    buffered: u32,
    pkts: u32,
    every: u32,
    delay: Option<Dur>,
    deadline: Option<Time>,
    urgent: bool,
}

impl Receiver {
    pub fn new(cfg: &SctpConfig, peer_initial_tsn: Tsn) -> Receiver {
        Receiver {
            cum: crate::packet::Seq(peer_initial_tsn.0.wrapping_sub(1)),
            base: peer_initial_tsn,
            next: 0,
            above: BTreeMap::new(),
            dups: vec![],
            next_ssn: vec![0; 65536],
            held: vec![BTreeMap::new(); 65536],
            delivered: vec![],
            rwnd: cfg.rwnd.min(u32::MAX as u64) as u32,
            buffered: 0,
            pkts: 0,
            every: cfg.sack_every,
            delay: cfg.sack_delay,
            deadline: None,
            urgent: false,
        }
    }

    fn deliver(&mut self, d: DataChunk) -> u64 {
        let mut bytes = 0;
        if d.unordered {
            self.delivered.push(Delivery {
                stream: d.stream,
                ssn: d.ssn,
                tsn: d.tsn,
                len: d.len,
            });
            return d.len as u64;
        }
        let s = d.stream as usize;
        self.held[s].insert(d.ssn, d);
        while let Some(c) = self.held[s].remove(&self.next_ssn[s]) {
            self.next_ssn[s] = self.next_ssn[s].wrapping_add(1);
            self.delivered.push(Delivery {
                stream: c.stream,
                ssn: c.ssn,
                tsn: c.tsn,
                len: c.len,
            });
            bytes += c.len as u64;
        }
        bytes
    }

    pub fn on_data(&mut self, _now: Time, d: &DataChunk) -> u64 {
        let off = d.tsn.0.wrapping_sub(self.base.0) as u64;
        if off < self.next || self.above.contains_key(&off) {
            self.dups.push(d.tsn);
            self.urgent = true;
            return 0;
        }
        let mut bytes = 0;
        if off == self.next {
            self.next += 1;
            self.cum = d.tsn;
            bytes += self.deliver(*d);
            while let Some(c) = self.above.remove(&self.next) {
                self.next += 1;
                self.cum = c.tsn;
                self.buffered -= c.len;
                bytes += self.deliver(c);
            }
        } else {
            self.above.insert(off, *d);
            self.buffered += d.len;
        }
        if !self.above.is_empty() {
            self.urgent = true;
        }
        bytes
    }

    pub fn end_of_packet(&mut self, now: Time) -> bool {
        self.pkts += 1;
        if self.urgent || self.pkts >= self.every || self.delay.is_none() {
            return true;
        }
        if self.deadline.is_none() {
            self.deadline = self.delay.map(|d| now + d);
        }
        false
    }

    pub fn take_sack(&mut self) -> SackChunk {
        let mut gaps: Vec<GapBlock> = vec![];
        for &k in self.above.keys() {
            let k = (k + 1 - self.next) as u16;
            match gaps.last_mut() {
                Some(g) if g.end + 1 == k => g.end = k,
                _ => gaps.push(GapBlock { start: k, end: k }),
            }
        }
        self.pkts = 0;
        self.deadline = None;
        self.urgent = false;
        SackChunk {
            cum_tsn: self.cum,
            a_rwnd: self.rwnd.saturating_sub(self.buffered),
            gaps,
            dups: std::mem::take(&mut self.dups),
        }
    }

    pub fn next_timeout(&self) -> Option<Time> {
        self.deadline
    }

    pub fn cum_tsn(&self) -> Tsn {
        self.cum
    }

    pub fn deliveries(&self) -> &[Delivery] {
        &self.delivered
    }
}
