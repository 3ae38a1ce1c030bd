//! Applications: what a flow's sending application offers its transport. One interface,
//! [`AppSource`], serves every transport (DESIGN.md, "Network": applications are "used by
//! every transport through one interface"):
//!
//! - a byte-stream transport (TCP, SCTP) asks how many bytes are offered from a stream offset
//!   on ([`AppSource::available_from`]), records what it takes ([`AppSource::take`]) and asks
//!   whether everything offered is acknowledged ([`AppSource::is_done`]);
//! - a message transport (UDP) asks when the next message is due ([`AppSource::next_send`])
//!   and takes the messages that are due ([`AppSource::poll_message`]);
//! - the world starts and stops the application ([`AppSource::start`], [`AppSource::stop`]);
//!   the transport passes these on, since it owns its application.
//!
//! The models: [`Bulk`] (an unlimited backlog), [`File`] (exactly `n` bytes), [`Cbr`]
//! (fixed-size messages at a fixed interval) and [`OnOff`] (a greedy source switched on and
//! off). Workloads of many finite transfers draw their sizes from a [`SizeDist`]. Dispatch is an enum, not `Box<dyn>` (STYLE.md
//! habit 2). A frame source with back-pressure (study 1) is meant as another variant: it would
//! answer `available_from` with the bytes of the frames generated so far, `next_send` with the
//! next frame's time (so the transport wakes when new data appears), and see the transport's
//! consumption through `take` (its buffer occupancy is generated − taken).
//!
//! [`AppData`] is the configuration of a byte-stream application (what a scenario's `app` and
//! `size` say); an [`AppSource`] is built from it (STYLE.md habit 6).
//!
//! Stopping (DESIGN.md, "Events": App start/stop): from the stop on, a byte source offers
//! nothing beyond what its transport has already taken; what was taken is still delivered (and
//! retransmitted as needed). A finite file keeps its own end if that comes first. A CBR source
//! sends no message due at or after the stop time.
//!
//! Layering: uses the kernel only. DESIGN.md lists `app/` after `transport/` ("each uses only
//! those above"), which would let applications use transports but not transports hold their
//! application. A transport must ask its application what to send (TCP from an arbitrary
//! offset, when it retransmits), so the interface sits here, knowing nothing of packets or
//! headers, and the transports use it: the order is kernel → ids/units → packet → app →
//! transport. (A CBR source is told its messages' wire size by its transport: headers are the
//! transport's business.)

mod cbr;
mod frames;
mod onoff;
mod sizes;
mod stream;

pub use cbr::Cbr;
pub use frames::Frames;
pub use onoff::{OnOff, PeriodDist};
pub use sizes::{Cdf, CdfError, SizeDist};
pub use stream::{Bulk, File};

use packetsim_kernel::{Dur, Rate, Time};

/// How much data a byte-stream application offers (its configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppData {
    /// An unlimited backlog (bulk transfer).
    Unlimited,
    /// Exactly this many bytes (a file), then the connection idles.
    Bytes(u64),
}

/// A sending application of any kind, as its transport sees it (enum dispatch).
///
/// 24 bytes: the byte-stream variants that every TCP and SCTP flow carries are inline; the
/// larger CBR schedule is boxed (one allocation per CBR flow at build, none per packet), so
/// that per-flow transport state stays compact (DESIGN.md, "Performance").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppSource {
    /// An unlimited backlog.
    Bulk(Bulk),
    /// A finite file.
    File(File),
    /// Constant-bit-rate messages.
    Cbr(Box<Cbr>),
    /// Blocks into a send buffer with back-pressure (study 1's CBRFrame).
    Frames(Box<Frames>),
    /// A greedy source switched on and off.
    OnOff(Box<OnOff>),
}

impl From<AppData> for AppSource {
    fn from(d: AppData) -> AppSource {
        match d {
            AppData::Unlimited => AppSource::Bulk(Bulk::default()),
            AppData::Bytes(n) => AppSource::File(File::new(n)),
        }
    }
}

impl AppSource {
    /// A CBR source of `payload`-byte messages whose packets are `wire_bytes` long on a link,
    /// paced at `rate` (counted in wire bytes).
    pub fn cbr(rate: Rate, payload: u32, wire_bytes: u32) -> AppSource {
        AppSource::Cbr(Box::new(Cbr::new(rate, payload, wire_bytes)))
    }

    /// Bytes offered at stream offset `from` and beyond (`u64::MAX`: unlimited). A message
    /// source offers no stream: 0.
    #[inline]
    pub fn available_from(&self, from: u64) -> u64 {
        match self {
            AppSource::Bulk(_) => u64::MAX,
            AppSource::File(f) => f.available_from(from),
            AppSource::Cbr(_) => 0,
            AppSource::Frames(f) => f.available_from(from),
            AppSource::OnOff(o) => o.available_from(from),
        }
    }

    /// Bytes offered beyond what the transport has taken.
    #[inline]
    pub fn available(&self) -> u64 {
        self.available_from(self.taken())
    }

    /// The transport takes the next `n` offered bytes (it sent them for the first time).
    #[inline]
    pub fn take(&mut self, n: u64) {
        match self {
            AppSource::Bulk(b) => b.taken += n,
            AppSource::File(f) => f.take(n),
            AppSource::Cbr(_) => debug_assert!(false, "a CBR source offers no byte stream"),
            AppSource::Frames(f) => f.take(n),
            AppSource::OnOff(o) => o.take(n),
        }
    }

    /// Bytes the transport has taken so far: of a stream, the offset of the next new byte; of
    /// a message source, the payload of the messages taken.
    #[inline]
    pub fn taken(&self) -> u64 {
        match self {
            AppSource::Bulk(b) => b.taken,
            AppSource::File(f) => f.taken(),
            AppSource::Cbr(c) => c.sent() * c.payload() as u64,
            AppSource::Frames(f) => f.taken(),
            AppSource::OnOff(o) => o.taken(),
        }
    }

    /// Whether every byte offered has been acknowledged, given the bytes acknowledged so far.
    /// Never for an unlimited or a message source.
    pub fn is_done(&self, acked: u64) -> bool {
        match self {
            AppSource::File(f) => acked >= f.bytes(),
            AppSource::Bulk(_) | AppSource::Cbr(_) | AppSource::Frames(_) | AppSource::OnOff(_) => {
                false
            }
        }
    }

    /// The application starts at `now`. A CBR source's first message is due at once; a byte
    /// source offers everything from the start.
    pub fn start(&mut self, now: Time) {
        match self {
            AppSource::Cbr(c) => c.start(now),
            AppSource::Frames(f) => f.start(now),
            AppSource::OnOff(o) => o.start(now),
            AppSource::Bulk(_) | AppSource::File(_) => {}
        }
    }

    /// The application stops offering data at `now` (see the module doc). A bulk source
    /// becomes the file of what was taken.
    pub fn stop(&mut self, now: Time) {
        match self {
            AppSource::Bulk(b) => {
                let taken = b.taken;
                *self = AppSource::File(File::stopped(taken));
            }
            AppSource::File(f) => f.cap_at_taken(),
            AppSource::Cbr(c) => c.stop_at(now),
            AppSource::Frames(f) => {
                let taken = f.taken();
                *self = AppSource::File(File::stopped(taken));
            }
            AppSource::OnOff(o) => {
                let taken = o.taken();
                *self = AppSource::File(File::stopped(taken));
            }
        }
    }

    /// When a byte source next offers more data by itself (a frame source's next block),
    /// so that its transport wakes then. None for the others.
    #[inline]
    pub fn next_wakeup(&self) -> Option<Time> {
        match self {
            AppSource::Frames(f) => f.next_wakeup(),
            AppSource::OnOff(o) => o.next_wakeup(),
            AppSource::Bulk(_) | AppSource::File(_) | AppSource::Cbr(_) => None,
        }
    }

    /// A byte source catches up with `now`, `acked` stream bytes being acknowledged in all
    /// (its send buffer drained to written − acked). A frame source acts on it; an on-off
    /// source switches periods.
    #[inline]
    pub fn advance(&mut self, now: Time, acked: u64) {
        match self {
            AppSource::Frames(f) => f.advance(now, acked),
            AppSource::OnOff(o) => o.advance(now),
            AppSource::Bulk(_) | AppSource::File(_) | AppSource::Cbr(_) => {}
        }
    }

    /// Whether the application will offer more bytes later by itself (a frame source), so a
    /// transport should not send a short segment now (sender SWS avoidance).
    #[inline]
    pub fn more_expected(&self) -> bool {
        matches!(self, AppSource::Frames(_))
    }

    /// A frame source (spec 1 §2.4).
    pub fn frames(block: u64, interval: Dur, buffer: u64, resume_at: u64) -> AppSource {
        AppSource::Frames(Box::new(Frames::new(block, interval, buffer, resume_at)))
    }

    /// A frame source with YATS's start-stop protocol (whole blocks; see `frames`).
    pub fn frames_whole_blocks(
        block: u64,
        interval: Dur,
        buffer: u64,
        resume_at: u64,
    ) -> AppSource {
        AppSource::Frames(Box::new(Frames::whole_blocks(
            block, interval, buffer, resume_at,
        )))
    }

    /// When the next message is due, if any (a byte source: never, everything is offered).
    #[inline]
    pub fn next_send(&self) -> Option<Time> {
        match self {
            AppSource::Cbr(c) => c.next_send(),
            AppSource::Bulk(_)
            | AppSource::File(_)
            | AppSource::Frames(_)
            | AppSource::OnOff(_) => None,
        }
    }

    /// Takes the next message if it is due at or before `now`: its payload bytes. Call until
    /// `None` to take every message due.
    #[inline]
    pub fn poll_message(&mut self, now: Time) -> Option<u32> {
        match self {
            AppSource::Cbr(c) => c.poll_message(now),
            AppSource::Bulk(_)
            | AppSource::File(_)
            | AppSource::Frames(_)
            | AppSource::OnOff(_) => None,
        }
    }

    /// Messages taken so far (0 for a byte source).
    pub fn messages_taken(&self) -> u64 {
        match self {
            AppSource::Cbr(c) => c.sent(),
            AppSource::Bulk(_)
            | AppSource::File(_)
            | AppSource::Frames(_)
            | AppSource::OnOff(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packetsim_kernel::Dur;

    // DESIGN.md "Network" (applications, one interface): a file offers exactly its n bytes,
    // wherever the transport asks from, and is done when all n are acknowledged.
    #[test]
    fn file_exhausts_at_exactly_n_bytes() {
        let mut a = AppSource::from(AppData::Bytes(2500));
        assert_eq!(a.available(), 2500);
        a.take(1000);
        a.take(1000);
        assert_eq!(a.available(), 500);
        assert_eq!(
            a.available_from(1000),
            1500,
            "a retransmission asks from behind"
        );
        a.take(500);
        assert_eq!((a.taken(), a.available()), (2500, 0));
        assert!(!a.is_done(2499));
        assert!(a.is_done(2500));
        assert_eq!(a.next_send(), None);
    }

    // DESIGN.md "Network" (applications): a bulk source never runs dry and is never done.
    #[test]
    fn bulk_unlimited_never_done() {
        let mut a = AppSource::from(AppData::Unlimited);
        a.take(1 << 40);
        assert_eq!(a.available(), u64::MAX);
        assert!(!a.is_done(u64::MAX));
    }

    // DESIGN.md "Events" (App stop), semantics of `TcpSender::stop_app`: what was already
    // taken is still delivered, nothing more is offered; a file keeps its own end if that
    // comes first.
    #[test]
    fn stop_mid_transfer_caps_at_what_was_taken() {
        let mut bulk = AppSource::from(AppData::Unlimited);
        bulk.take(3000);
        bulk.stop(Time::from_millis(5));
        assert_eq!((bulk.taken(), bulk.available()), (3000, 0));
        assert_eq!(
            bulk.available_from(2000),
            1000,
            "taken bytes can still be resent"
        );
        assert!(!bulk.is_done(2999));
        assert!(bulk.is_done(3000));

        let mut file = AppSource::from(AppData::Bytes(10_000));
        file.take(4000);
        file.stop(Time::from_millis(5));
        assert_eq!(file.available(), 0);
        assert!(file.is_done(4000));

        let mut small = AppSource::from(AppData::Bytes(2000));
        small.take(2000);
        small.stop(Time::from_millis(5));
        assert_eq!((small.available_from(0), small.available()), (2000, 0));
        assert!(small.is_done(2000));
    }

    // transport/udp.rs module doc: the rate counts whole IP packets, so 1 Mb/s of 1000-byte
    // payloads (1028 B on the wire) is one message every 8.224 ms; none at or after the stop.
    #[test]
    fn cbr_interval_from_wire_size_and_stop() {
        let mut a = AppSource::cbr(Rate::mbps(1), 1000, 1028);
        assert_eq!(a.next_send(), None, "not started");
        a.start(Time::ZERO);
        assert_eq!(a.next_send(), Some(Time::ZERO));
        assert_eq!(a.poll_message(Time::ZERO), Some(1000));
        assert_eq!(a.poll_message(Time::ZERO), None);
        assert_eq!(a.next_send(), Some(Time::ZERO + Dur::from_micros(8_224)));
        a.stop(Time::from_millis(20));
        let mut n = 0;
        while a.poll_message(Time::from_millis(100)).is_some() {
            n += 1;
        }
        // Due at 8.224 and 16.448 ms; the next (24.672 ms) is past the stop.
        assert_eq!((n, a.messages_taken()), (2, 3));
        assert_eq!(a.next_send(), None);
        assert_eq!(a.available_from(0), 0, "a message source offers no stream");
        assert_eq!(a.taken(), 3000);
    }

    // spec 1 §2.4: 9180 B every 2 ms into a 64,000-byte buffer; the block that does not fit
    // is written in part and the source pauses (no more blocks while paused, even when the
    // buffer drains but stays above BUF − 4096); it resumes at BUF − 4096 = 59,904 bytes,
    // writing the rest of the block, and blocks come again on its 2 ms clock.
    #[test]
    fn frames_pause_when_full_resume_at_buf_minus_4096() {
        let ms = Time::from_millis;
        let mut a = AppSource::frames(9180, Dur::from_millis(2), 64_000, 64_000 - 4096);
        a.start(ms(0));
        assert_eq!(a.next_wakeup(), Some(ms(0)));
        a.advance(ms(12), 0);
        // Blocks at 0, 2, ..., 12 ms: 7 × 9180 = 64,260 > 64,000: 260 bytes kept, paused.
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused(), f.pauses()), (64_000, true, 1));
        assert_eq!(a.next_wakeup(), None, "paused: no wake-ups");
        assert_eq!(a.available_from(0), 64_000);
        a.take(9128);
        // 4095 bytes acknowledged: occupancy 59,905 > 59,904, still paused, no block at 14 ms.
        a.advance(ms(14), 4095);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused()), (64_000, true));
        // One more byte: resume; the 260 bytes are written at once.
        a.advance(ms(15), 4096);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused()), (64_260, false));
        assert_eq!(a.next_wakeup(), Some(ms(16)), "the 2 ms clock again");
        // Block at 16 ms: room 64,000 − (64,260 − 20,000) = 19,740 >= 9180.
        a.advance(ms(16), 20_000);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused()), (73_440, false));
        assert_eq!(a.taken(), 9128);
        assert!(!a.is_done(u64::MAX), "a frame source never ends");
    }

    // YATS `cbrframe::early`/`rec` and `tcpipsend::rec`/`process_ack` (start-stop): a block
    // is accepted whole while the buffer is not full, and the one that fills it pauses the
    // source; on resume (occupancy <= BUF - 4096 at an ACK) the next block comes at the later
    // of its own time (pause time + interval) and just after the ACK, never at the ACK itself.
    #[test]
    fn frames_whole_blocks_as_yats_start_stop() {
        let ms = Time::from_millis;
        let mut a = AppSource::frames_whole_blocks(9180, Dur::from_millis(2), 64_000, 59_904);
        a.start(ms(0));
        a.advance(ms(12), 0);
        // Blocks at 0, 2, ..., 12 ms, all whole: 64,260 >= 64,000, paused.
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused(), f.pauses()), (64_260, true, 1));
        assert_eq!(a.next_wakeup(), None);
        // Occupancy 64,260 - 4,355 = 59,905 > 59,904: still paused, no block at 14 ms.
        a.advance(ms(14), 4355);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused()), (64_260, true));
        // One more byte at 15 ms: resume; the next block is due just after 15 ms (its own
        // time, 14 ms, has passed), not at once.
        a.advance(ms(15), 4356);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused()), (64_260, false));
        let due = ms(15) + Dur(1);
        assert_eq!(a.next_wakeup(), Some(due));
        // That block is taken whole (73,440, occupancy 69,084): paused again.
        a.advance(due, 4356);
        let AppSource::Frames(f) = &a else { panic!() };
        assert_eq!((f.written(), f.is_paused(), f.pauses()), (73_440, true, 2));
        // An early resume keeps the block's own time: paused at 15 ms + 1 ns, next due
        // 17 ms + 1 ns; resumed at 16 ms.
        a.advance(ms(16), 20_000);
        assert_eq!(a.next_wakeup(), Some(ms(17) + Dur(1)));
    }

    // DESIGN.md "Performance" (compact per-flow state): the source every TCP/SCTP flow
    // carries is no larger than the configuration and the offset it replaces.
    #[test]
    fn app_source_is_compact() {
        assert!(std::mem::size_of::<AppSource>() <= 24);
    }
}
