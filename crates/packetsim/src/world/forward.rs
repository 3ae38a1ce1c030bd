//! Packets at nodes and on links: arrival at a node (elements first, then forwarding), the
//! forwarding answer carried out ([`Next`]), lazy and pull transmitters, and link changes.

use super::{Event, World};
use crate::ids::{Addr, EgressId, LinkId, NodeId};
use crate::net::{Disposition, LinkChange, Next};
use crate::packet::{Body, Ecn, Packet};
use crate::queue::DropReason;
use crate::trace::EventKind;
use crate::transport::Notice;
use packetsim_kernel::Time;

impl World {
    /// A packet reached the far end of `via`; `dst` is its destination, carried in the event
    /// so that forwarding need not wait for the packet's arena slot.
    #[inline(always)]
    pub(super) fn arrive(&mut self, now: Time, pkt: u32, via: EgressId, dst: Addr) {
        if self.tracer.is_some() {
            return self.arrive_traced(now, pkt, via, dst);
        }
        self.arrive_as::<false>(now, pkt, via, dst);
    }

    /// [`World::arrive`] with a tracer attached: the tracer sees the arrival and the next
    /// queue's verdict.
    #[cold]
    #[inline(never)]
    fn arrive_traced(&mut self, now: Time, pkt: u32, via: EgressId, dst: Addr) {
        self.trace_arrive(now, pkt, via);
        self.arrive_as::<true>(now, pkt, via, dst);
    }

    /// The arrival itself; `TRACED` picks the traced enqueue at compile time, so the untraced
    /// run's code is what it was.
    #[inline(always)]
    fn arrive_as<const TRACED: bool>(&mut self, now: Time, pkt: u32, via: EgressId, dst: Addr) {
        let egress = &mut self.net.egresses[via.idx()];
        egress.stats.delivered += 1;
        let node = egress.to;
        let n = &self.net.nodes[node.idx()];
        debug_assert_eq!(dst, self.packets.get(pkt).dst, "the event's destination");
        if n.is_plain() {
            // The route is read from the node already looked up, and each answer is acted on
            // where it is found (a `Next` carried on to one `match` with the other nodes'
            // answers was kept in memory).
            if self.net.is_local(node, dst) {
                return if TRACED {
                    self.deliver_traced(now, pkt)
                } else {
                    self.deliver(now, pkt)
                };
            }
            return match self.net.next_hop_remote(n, dst) {
                Next::Egress(e) if TRACED => self.enqueue_traced(now, e, pkt),
                Next::Egress(e) => self.enqueue(now, e, pkt),
                next => self.forward(now, node, pkt, next),
            };
        }
        if !n.elements().is_empty() {
            return self.arrive_at_elements(now, node, pkt, via);
        }
        // Interceptions, host routes or equal-cost groups (a fat tree's switches).
        match self.net.next_hop(now, node, dst) {
            Next::Deliver if TRACED => self.deliver_traced(now, pkt),
            Next::Deliver => self.deliver(now, pkt),
            Next::Egress(e) if TRACED => self.enqueue_traced(now, e, pkt),
            Next::Egress(e) => self.enqueue(now, e, pkt),
            next => self.forward(now, node, pkt, next),
        }
    }

    /// A packet reached `node`, which has elements: they see it first, then it is forwarded
    /// to its destination, which they may have rewritten (traced if a tracer is attached).
    #[inline(never)]
    fn arrive_at_elements(&mut self, now: Time, node: NodeId, pkt: u32, via: EgressId) {
        match self.show_elements(now, node, via, pkt) {
            Disposition::Pass => {}
            Disposition::Consume => return,
            Disposition::Redirect(next) => return self.forward(now, node, pkt, next),
        }
        let dst = self.packets.get(pkt).dst;
        let next = self.net.next_hop(now, node, dst);
        self.forward(now, node, pkt, next);
    }

    /// Shows the tracer a packet reaching the far end of `via`.
    #[cold]
    #[inline(never)]
    fn trace_arrive(&mut self, now: Time, pkt: u32, via: EgressId) {
        let p = self.packets.get(pkt);
        let forward = self
            .flows
            .get(p.flow.idx())
            .is_none_or(|f| p.to == f.receiver);
        if let Some(t) = self.tracer.as_deref_mut() {
            t.arrive(now, via, p, forward);
        }
    }

    /// Carries out a forwarding answer for packet `pkt` (in the arena) at `node`.
    #[inline(never)]
    pub(super) fn forward(&mut self, now: Time, node: NodeId, pkt: u32, next: Next) {
        match next {
            Next::Deliver if self.tracer.is_some() => self.deliver_traced(now, pkt),
            Next::Deliver => self.deliver(now, pkt),
            Next::Egress(e) => self.enqueue_any(now, e, pkt),
            Next::Spread(g) => {
                let e = self.net.spread(node, g, self.packets.get(pkt));
                self.enqueue_any(now, e, pkt);
            }
            Next::Many(hops) => {
                let hops = hops.as_slice();
                for (i, &e) in hops.iter().enumerate() {
                    let id = if i + 1 == hops.len() {
                        pkt
                    } else {
                        let copy = self.packets.get(pkt).clone();
                        self.books.copied += 1;
                        self.packets.insert(copy)
                    };
                    self.enqueue_any(now, e, id);
                }
            }
            Next::Element(el) => match self.element_sees(now, el, None, pkt) {
                Disposition::Consume => {}
                Disposition::Redirect(Next::Element(_)) => {
                    // An element handing a packet to an element could loop: a bug.
                    debug_assert!(false, "{el} redirected a packet to an element");
                    self.drop_held(pkt, DropReason::NoRoute);
                }
                Disposition::Redirect(next) => self.forward(now, node, pkt, next),
                Disposition::Pass => {
                    // The interceptor declined: forward by the routes, skipping interception.
                    let dst = self.packets.get(pkt).dst;
                    let next = self.net.next_hop_routed(now, node, dst);
                    self.forward(now, node, pkt, next);
                }
            },
            Next::Drop(r) => self.drop_held(pkt, r),
        }
    }

    /// [`World::deliver`] with a tracer attached: its flow monitor sees the delivery.
    #[cold]
    #[inline(never)]
    fn deliver_traced(&mut self, now: Time, pkt: u32) {
        let p = self.packets.get(pkt);
        if let Some(t) = self.tracer.as_deref_mut() {
            if !matches!(p.body, Body::Control(_)) {
                t.deliver(now, p);
            }
        }
        self.deliver(now, pkt);
    }

    /// Hands packet `pkt` to the endpoint it is addressed to.
    #[inline(always)]
    fn deliver(&mut self, now: Time, pkt: u32) {
        let p = self.packets.get(pkt);
        if matches!(p.body, Body::Control(_)) {
            // A control message that no element at its destination took.
            self.packets.discard(pkt);
            self.books.dropped[DropReason::Unclaimed as usize] += 1;
            return;
        }
        self.books.delivered += 1;
        let to = p.to;
        if p.payload() > 0 {
            self.flows[p.flow.idx()].data_packets_delivered += 1;
        }
        self.deliver_to(now, to, pkt);
    }

    /// Drops a packet held in the arena.
    fn drop_held(&mut self, pkt: u32, r: DropReason) {
        self.packets.discard(pkt);
        self.books.dropped[r as usize] += 1;
    }

    /// Sends packet `pkt`, just put in the arena by an endpoint or an element, from `node`
    /// towards `dst` (its destination).
    #[inline]
    pub(super) fn send_held(&mut self, now: Time, node: NodeId, dst: Addr, pkt: u32) {
        self.send_held_inline(now, node, dst, pkt);
    }

    /// [`World::send_held`], inlined: for the delivery adapter, which sends almost every
    /// packet (a call there cost about 20 instructions a packet).
    #[inline(always)]
    pub(super) fn send_held_inline(&mut self, now: Time, node: NodeId, dst: Addr, pkt: u32) {
        if self.tracer.is_some() {
            return self.send_held_traced(now, node, dst, pkt);
        }
        match self.net.next_hop(now, node, dst) {
            Next::Egress(e) => self.enqueue(now, e, pkt),
            next => self.forward(now, node, pkt, next),
        }
    }

    /// [`World::send_held`] with a tracer attached: through [`World::forward`], which traces
    /// the first queue's verdict.
    #[cold]
    #[inline(never)]
    fn send_held_traced(&mut self, now: Time, node: NodeId, dst: Addr, pkt: u32) {
        let next = self.net.next_hop(now, node, dst);
        self.forward(now, node, pkt, next);
    }

    /// Sends a packet that is not yet in the arena from `node` (an element's).
    pub(super) fn send_from(&mut self, now: Time, node: NodeId, p: Packet) {
        let dst = p.dst;
        let pkt = self.packets.insert(p);
        self.send_held(now, node, dst, pkt);
    }

    /// [`World::enqueue`], traced when a tracer is attached (for paths off the fast one).
    fn enqueue_any(&mut self, now: Time, e: EgressId, pkt: u32) {
        if self.tracer.is_some() {
            self.enqueue_traced(now, e, pkt);
        } else {
            self.enqueue(now, e, pkt);
        }
    }

    /// [`World::enqueue`] telling the tracer what the queue and the wire did: `enqueue`,
    /// `mark`, `drop` with its reason, and on a lazy FIFO the `dequeue` computed at admission.
    #[cold]
    #[inline(never)]
    fn enqueue_traced(&mut self, now: Time, e: EgressId, pkt: u32) {
        let p = self.packets.get_mut(pkt);
        let ecn_before = p.ecn;
        let egress = &mut self.net.egresses[e.idx()];
        let tracer = self.tracer.as_deref_mut().expect("called with a tracer");
        let admitted = |tracer: &mut crate::trace::Tracer, p: &crate::packet::Packet| {
            tracer.event(now, EventKind::Enqueue, e, p);
            if p.ecn == Ecn::Ce && ecn_before != Ecn::Ce {
                tracer.event(now, EventKind::Mark, e, p);
            }
        };
        if egress.is_pull() {
            match egress.enqueue_held(now, pkt, p) {
                Ok(()) => {
                    admitted(tracer, p);
                    self.start_tx(now, e);
                }
                Err(r) => {
                    tracer.event(now, EventKind::Drop(r), e, p);
                    self.drop_held(pkt, r);
                    self.free_queue_drops(now, e);
                }
            }
        } else {
            let sent_before = egress.stats.transmitted;
            match egress.send(now, p) {
                Ok(at) => {
                    admitted(tracer, p);
                    tracer.event(lazy_start(egress, p), EventKind::Dequeue, e, p);
                    let dst = p.dst;
                    self.queue.schedule(at, Event::Arrive { pkt, via: e, dst });
                }
                Err(r) => {
                    if egress.stats.transmitted != sent_before {
                        // Admitted and sent, then lost on the wire (decided at admission).
                        admitted(tracer, p);
                        tracer.event(lazy_start(egress, p), EventKind::Dequeue, e, p);
                    }
                    tracer.event(now, EventKind::Drop(r), e, p);
                    self.drop_held(pkt, r);
                }
            }
        }
    }

    /// Offers packet `pkt` (in the arena) to egress `e`.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, now: Time, e: EgressId, pkt: u32) {
        let p = self.packets.get_mut(pkt);
        let egress = &mut self.net.egresses[e.idx()];
        if egress.is_pull() {
            match egress.enqueue_held(now, pkt, p) {
                Ok(()) => self.start_tx(now, e),
                Err(r) => {
                    self.drop_held(pkt, r);
                    self.free_queue_drops(now, e);
                }
            }
        } else {
            let dst = p.dst;
            match egress.send(now, p) {
                Ok(at) => self.queue.schedule(at, Event::Arrive { pkt, via: e, dst }),
                Err(r) => self.drop_held(pkt, r),
            }
        }
    }

    /// Starts a pull-mode egress's next transmission if its transmitter is free.
    pub(super) fn start_tx(&mut self, now: Time, e: EgressId) {
        if self.net.egresses[e.idx()].is_cells() {
            return self.cell_tick(now, e);
        }
        let started = self.net.egresses[e.idx()].start_next(now, &mut self.packets);
        self.free_queue_drops(now, e);
        if let Some(s) = started {
            if let Some(t) = self.tracer.as_deref_mut() {
                let p = self.packets.get(s.pkt);
                t.event(now, EventKind::Dequeue, e, p);
                if let Err(r) = s.fate {
                    t.event(now, EventKind::Drop(r), e, p);
                }
            }
            self.queue.schedule(s.free_at, Event::TxDone { egress: e });
            match s.fate {
                Ok(at) => {
                    let dst = self.packets.get(s.pkt).dst;
                    self.queue.schedule(
                        at,
                        Event::Arrive {
                            pkt: s.pkt,
                            via: e,
                            dst,
                        },
                    )
                }
                Err(r) => self.drop_held(s.pkt, r),
            }
        }
    }

    /// Frees the packets egress `e`'s discipline dropped from among those it held (CoDel at
    /// dequeue, FQ-CoDel to make room), tracing each drop.
    #[inline]
    fn free_queue_drops(&mut self, now: Time, e: EgressId) {
        let egress = &mut self.net.egresses[e.idx()];
        if !egress.has_queue_drops() {
            return;
        }
        for (pkt, r) in egress.queue_drops() {
            if let Some(t) = self.tracer.as_deref_mut() {
                t.event(now, EventKind::Drop(r), e, self.packets.get(pkt));
            }
            self.packets.remove(pkt);
            self.books.dropped[r as usize] += 1;
        }
    }

    /// Drives a slotted cell link (`atm::port`) to `now`: packets whose frame left intact
    /// reach the far end at (their last cell's slot) + the port's phase + delay, the others
    /// are dropped (`CellLoss`); the next busy slot gets a TxDone.
    #[cold]
    #[inline(never)]
    fn cell_tick(&mut self, now: Time, e: EgressId) {
        use crate::net::Settled;
        let egress = &mut self.net.egresses[e.idx()];
        let delay = egress.delay;
        let port = egress.cells_mut().expect("a cell link");
        port.advance(now);
        let slot = port.slot();
        let delay = delay + port.phase();
        let next = port.next_tick();
        let mut settled = std::mem::take(&mut self.cell_settled);
        port.take_settled(&mut settled);
        for s in settled.drain(..) {
            let egress = &mut self.net.egresses[e.idx()];
            match s {
                Settled::Sent {
                    pkt,
                    slot: k,
                    cells,
                } => {
                    let p = self.packets.get(pkt);
                    if let Some(t) = self.tracer.as_deref_mut() {
                        // The frame's last cell left the switch in this slot.
                        t.event(now, EventKind::Dequeue, e, p);
                    }
                    let (size, dst) = (p.size, p.dst);
                    egress.queue.departures += 1;
                    egress.stats.transmitted += 1;
                    egress.stats.transmitted_bytes += size as u64;
                    egress.stats.busy += slot * cells as u64;
                    let at = Time::from_nanos(k * slot.as_nanos()) + delay;
                    debug_assert!(
                        at >= now,
                        "{}: a cell frame arrives in the past",
                        egress.name
                    );
                    self.queue
                        .schedule(at.max(now), Event::Arrive { pkt, via: e, dst });
                }
                Settled::Lost { pkt } => {
                    if let Some(t) = self.tracer.as_deref_mut() {
                        t.event(
                            now,
                            EventKind::Drop(DropReason::CellLoss),
                            e,
                            self.packets.get(pkt),
                        );
                    }
                    egress.queue.drop(DropReason::CellLoss);
                    self.drop_held(pkt, DropReason::CellLoss);
                }
            }
        }
        self.cell_settled = settled;
        let egress = &mut self.net.egresses[e.idx()];
        let pending = egress.cells().map_or(0, |c| c.pending());
        egress.queue.len.set(now, pending as f64);
        if let Some(at) = next {
            self.queue.schedule(at, Event::TxDone { egress: e });
        }
    }

    /// Schedules a change of egress `e` at `at` (a rate step, an outage's start or end). The
    /// builder declares the direction's changes first ([`crate::net::Egress::expect_changes`])
    /// so that it runs in pull mode from the start.
    pub fn schedule_link_change(&mut self, at: Time, e: EgressId, change: LinkChange) {
        let idx = self.changes.len() as u32;
        self.changes.push((e, change));
        self.queue.schedule(at, Event::LinkChange { change: idx });
    }

    /// Applies a change to egress `e` now, and wakes its transmitter when it may start. When
    /// the link as a whole changes state (down: either direction down; up: both up), the
    /// endpoints at both ends are told ([`Notice::LinkDown`], [`Notice::LinkUp`]), after the
    /// transmitters have switched.
    pub(super) fn change_link(&mut self, now: Time, e: EgressId, change: LinkChange) {
        let link = self.net.egresses[e.idx()].link;
        let was_up = self.link_up(link);
        if let Some(at) = self.net.egresses[e.idx()].change(now, change) {
            if at <= now {
                self.start_tx(now, e);
            } else {
                self.queue.schedule(at, Event::TxDone { egress: e });
            }
        }
        let is_up = self.link_up(link);
        if was_up != is_up {
            let notice = if is_up {
                Notice::LinkUp { link }
            } else {
                Notice::LinkDown { link }
            };
            let (a, b) = (self.net.links[link.idx()].a, self.net.links[link.idx()].b);
            self.notify(now, a, notice);
            self.notify(now, b, notice);
        }
    }

    fn link_up(&self, link: LinkId) -> bool {
        let l = &self.net.links[link.idx()];
        self.net.egresses[l.ab.idx()].is_up() && self.net.egresses[l.ba.idx()].is_up()
    }
}

/// When the transmission of `p`, just admitted by lazy FIFO `egress`, starts.
fn lazy_start(egress: &crate::net::Egress, p: &Packet) -> Time {
    let tx = egress.rate.tx_time(p.size);
    Time::from_nanos(egress.busy_until().as_nanos() - tx.as_nanos())
}
