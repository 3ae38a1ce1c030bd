//! A frame source with back-pressure (study 1's "CBRFrame", spec 1 §2.4; YATS start-stop
//! protocol): every `interval` it writes a block of `block` bytes into its transport's send
//! buffer of `buffer` bytes. The buffer holds what was written and not yet acknowledged
//! (occupancy = written − acknowledged). A block that does not fit is written as far as it
//! fits; the source then pauses, its clock generating nothing, and keeps the rest of the
//! block. When the occupancy has drained to `resume_at` (BUF − 4096 in the paper) it resumes:
//! the rest of the block is written at once and blocks come again on the source's clock
//! (every `interval` from its start). Nothing is ever dropped.
//!
//! With `whole_blocks` (YATS's start-stop protocol, `cbrframe` with `tcpipsend` as its
//! successor): a block is accepted whole while the buffer is not full, so the occupancy may
//! exceed `buffer` by less than a block, and the block that fills the buffer pauses the
//! source. On resume the next block comes at the later of its own time (the paused block's
//! time plus `interval`) and just after the resuming ACK (YATS: the next slot), and the clock
//! runs on from there.

use packetsim_kernel::{Dur, Time};

/// A frame source's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frames {
    block: u64,
    interval: Dur,
    buffer: u64,
    resume_at: u64,
    /// Bytes written into the send buffer so far (the stream offered).
    written: u64,
    /// Bytes of the current block not yet written (paused).
    pending: u64,
    paused: bool,
    /// The next block's time (`None`: not started).
    next: Option<Time>,
    /// Bytes the transport has taken (sent for the first time).
    taken: u64,
    /// Pauses so far.
    pauses: u64,
    /// YATS start-stop (see the module doc).
    whole_blocks: bool,
}

impl Frames {
    /// `block` bytes every `interval` into a buffer of `buffer` bytes, resuming at `resume_at`.
    pub fn new(block: u64, interval: Dur, buffer: u64, resume_at: u64) -> Frames {
        debug_assert!(resume_at < buffer && block > 0 && interval > Dur::ZERO);
        Frames {
            block,
            interval,
            buffer,
            resume_at,
            written: 0,
            pending: 0,
            paused: false,
            next: None,
            taken: 0,
            pauses: 0,
            whole_blocks: false,
        }
    }

    /// The same source with YATS's start-stop protocol (see the module doc).
    pub fn whole_blocks(block: u64, interval: Dur, buffer: u64, resume_at: u64) -> Frames {
        Frames {
            whole_blocks: true,
            ..Frames::new(block, interval, buffer, resume_at)
        }
    }

    /// The first block is due at `now`.
    pub fn start(&mut self, now: Time) {
        self.next = Some(now);
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Whether the source is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Pauses so far.
    pub fn pauses(&self) -> u64 {
        self.pauses
    }

    /// Bytes taken by the transport.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// The transport took `n` more bytes.
    pub fn take(&mut self, n: u64) {
        self.taken += n;
        debug_assert!(self.taken <= self.written);
    }

    /// Bytes offered from stream offset `from` on.
    pub fn available_from(&self, from: u64) -> u64 {
        self.written.saturating_sub(from)
    }

    /// The next block's time (wakes the transport), if started and not paused.
    pub fn next_wakeup(&self) -> Option<Time> {
        if self.paused {
            None
        } else {
            self.next
        }
    }

    /// Brings the source up to `now`, `acked` bytes having been acknowledged in all.
    pub fn advance(&mut self, now: Time, acked: u64) {
        if self.whole_blocks {
            self.advance_whole(now, acked);
            return;
        }
        if self.paused && self.written - acked <= self.resume_at {
            self.paused = false;
            self.write(acked);
        }
        while let Some(t) = self.next {
            if t > now {
                break;
            }
            if !self.paused {
                self.pending += self.block;
                self.write(acked);
            }
            self.next = Some(t + self.interval);
        }
    }

    /// `advance` with YATS's start-stop protocol.
    fn advance_whole(&mut self, now: Time, acked: u64) {
        if self.paused && self.written - acked <= self.resume_at {
            self.paused = false;
            // YATS `cbrframe::rec`: the block due at the pause's time + interval, or in the
            // next slot if that has passed (`alarme(&std_evt, 1)`): after the ACK, not at it.
            self.next = self.next.map(|t| t.max(now + Dur(1)));
        }
        while let Some(t) = self.next {
            if self.paused || t > now {
                break;
            }
            // YATS `tcpipsend::rec`: the block is taken whole; StopSend once it is full.
            self.written += self.block;
            self.next = Some(t + self.interval);
            if self.written - acked >= self.buffer {
                self.paused = true;
                self.pauses += 1;
            }
        }
    }

    fn write(&mut self, acked: u64) {
        let room = self.buffer - (self.written - acked);
        let w = self.pending.min(room);
        self.written += w;
        self.pending -= w;
        if self.pending > 0 {
            self.paused = true;
            self.pauses += 1;
        }
    }
}
