//! The element adapter: shows packets to node elements, runs their timers, and carries out
//! what they ask (sends, routes, link changes), in order, after each call. One timer event per
//! element at its earliest deadline, as for endpoints.

use super::{Event, World};
use crate::ids::{EgressId, ElementId, FlowId, NodeId};
use crate::net::processing::{Processing, Side};
use crate::net::{Disposition, Element, ElementCtx, Request, Via};
use crate::packet::{Packet, IP_HEADER_BYTES};
use packetsim_kernel::{Dur, Rng, Time};

/// A node element and where it sits.
pub struct ElementSlot {
    /// The element.
    pub element: Box<dyn Element>,
    /// The node it is at.
    pub node: NodeId,
    /// The earliest pending timer event for it, if any.
    armed: Option<Time>,
}

impl World {
    /// Adds `element` at `node`. With `watch`, it is shown every packet arriving at the node
    /// over a link (after the elements added before it); without, it sees only what is handed
    /// to it ([`crate::net::Net::intercept`]). Its first timer is armed at once.
    pub fn add_element(
        &mut self,
        node: NodeId,
        element: Box<dyn Element>,
        watch: bool,
    ) -> ElementId {
        let id = ElementId(self.elements.len() as u32);
        self.elements.push(ElementSlot {
            element,
            node,
            armed: None,
        });
        if watch {
            self.net.watch(node, id);
        }
        self.retarget_element(self.now(), id);
        id
    }

    /// Shows packet `pkt`, arrived at `node` over `via`, to the node's watching elements in
    /// order, until one does not pass it.
    pub(super) fn show_elements(
        &mut self,
        now: Time,
        node: NodeId,
        via: EgressId,
        pkt: u32,
    ) -> Disposition {
        for i in 0..self.net.nodes[node.idx()].elements().len() {
            let el = self.net.nodes[node.idx()].elements()[i];
            match self.element_sees(now, el, Some(via), pkt) {
                Disposition::Pass => {}
                d => return d,
            }
        }
        Disposition::Pass
    }

    /// Shows packet `pkt` to one element; a consumed packet leaves the arena.
    pub(super) fn element_sees(
        &mut self,
        now: Time,
        el: ElementId,
        via: Option<EgressId>,
        pkt: u32,
    ) -> Disposition {
        let mut ctx = std::mem::take(&mut self.ectx);
        ctx.requests.clear();
        let p = self.packets.get_mut(pkt);
        let d = self.elements[el.idx()]
            .element
            .on_packet(now, via, p, &mut ctx);
        if d == Disposition::Consume {
            self.packets.remove(pkt);
            self.books.consumed += 1;
        }
        self.carry_out(now, el, ctx);
        d
    }

    /// A packet an element consumed is dropped after all (`Request::Drop`): it moves from
    /// the consumed count to the dropped one, so the books still balance.
    #[cold]
    fn drop_consumed(
        &mut self,
        now: Time,
        pkt: Packet,
        egress: EgressId,
        reason: crate::queue::DropReason,
    ) {
        self.books.consumed -= 1;
        self.books.dropped[reason as usize] += 1;
        if let Some(t) = self.tracer.as_deref_mut() {
            t.event(now, crate::trace::EventKind::Drop(reason), egress, &pkt);
        }
    }

    /// A handoff decision, for the event trace (nothing without a tracer).
    #[cold]
    fn trace_handoff(
        &mut self,
        now: Time,
        mobile: NodeId,
        from: Option<NodeId>,
        to: Option<NodeId>,
    ) {
        if let Some(t) = self.tracer.as_deref_mut() {
            let name = |n: Option<NodeId>| n.map_or("", |n| self.net.nodes[n.idx()].name.as_str());
            t.handoff(now, name(Some(mobile)), name(from), name(to));
        }
    }

    /// An element may be due: runs its timers, or re-arms at its deadline.
    pub(super) fn element_timer(&mut self, now: Time, el: ElementId) {
        let slot = &mut self.elements[el.idx()];
        if slot.armed == Some(now) {
            slot.armed = None;
        }
        if slot.element.next_timeout().is_some_and(|t| t <= now) {
            let mut ctx = std::mem::take(&mut self.ectx);
            ctx.requests.clear();
            self.elements[el.idx()].element.on_timer(now, &mut ctx);
            self.carry_out(now, el, ctx);
        } else {
            self.retarget_element(now, el);
        }
    }

    /// Carries out an element's requests, in order, then re-arms its timer.
    fn carry_out(&mut self, now: Time, el: ElementId, mut ctx: ElementCtx) {
        let node = self.elements[el.idx()].node;
        for req in ctx.requests.drain(..) {
            match req {
                Request::Send {
                    mut pkt,
                    via,
                    fresh,
                } => {
                    if fresh {
                        pkt.uid = self.books.created;
                        pkt.size = IP_HEADER_BYTES + pkt.body.transport_len();
                    }
                    self.books.created += 1;
                    match via {
                        Via::Route => self.send_from(now, node, pkt),
                        Via::Egress(e) => {
                            debug_assert!(
                                self.net.nodes[node.idx()].egresses.contains(&e),
                                "{el} at {node} sends down {e}, which leaves another node"
                            );
                            let id = self.packets.insert(pkt);
                            self.enqueue(now, e, id);
                        }
                        Via::Onward => {
                            let next = self.net.next_hop_routed(now, node, pkt.dst);
                            let id = self.packets.insert(pkt);
                            self.forward(now, node, id, next);
                        }
                    }
                }
                Request::InstallRoute { node, route } => self.net.install_route(node, route),
                Request::RemoveRoute { node, dst } => {
                    self.net.remove_route(node, dst);
                }
                Request::Link { egress, change } => self.change_link(now, egress, change),
                Request::Notify { node, notice } => self.notify(now, node, notice),
                Request::Drop {
                    pkt,
                    egress,
                    reason,
                } => self.drop_consumed(now, pkt, egress, reason),
                Request::Handoff { mobile, from, to } => self.trace_handoff(now, mobile, from, to),
            }
        }
        self.ectx = ctx;
        self.retarget_element(now, el);
    }

    /// Gives flow `flow` per-packet processing (spec 1 §2.5-2.6, [`Processing`]): with
    /// `sender = Some((base, jitter))`, every packet its sender sends is held at the sender's
    /// node for `base` plus a uniform draw from `[0, jitter]`, first in first out; with
    /// `receiver = Some(d)`, every packet arriving for its receiver is held `d` at the
    /// receiver's node. Each node has one [`Processing`] element, made on first use; the
    /// jitter is drawn from the stream `flows.<name>.sender_processing` under `seed`.
    pub fn add_processing(
        &mut self,
        flow: FlowId,
        sender: Option<(Dur, Dur)>,
        receiver: Option<Dur>,
        seed: u64,
    ) {
        let f = &self.flows[flow.idx()];
        let (snd, rcv) = (f.sender, f.receiver);
        let name = f.name.clone();
        let (snd_node, rcv_node) = (self.agents[snd.idx()].node, self.agents[rcv.idx()].node);
        if let Some((base, jitter)) = sender {
            let el = self.processing_at(snd_node);
            let rng = Rng::for_component(seed, &format!("flows.{name}.sender_processing"));
            self.processing_mut(el)
                .add(rcv, Side::Outgoing, base, jitter, rng);
            // Every packet of the sender goes to its receiver's node address.
            let dst = self.net.addr_of(rcv_node);
            self.net.intercept(snd_node, dst, el);
        }
        if let Some(d) = receiver {
            let el = self.processing_at(rcv_node);
            let rng = Rng::for_component(seed, &format!("flows.{name}.receiver_processing"));
            self.processing_mut(el)
                .add(rcv, Side::Incoming, d, Dur::ZERO, rng);
            if !self.net.nodes[rcv_node.idx()].elements().contains(&el) {
                self.net.watch(rcv_node, el);
            }
        }
    }

    /// The processing element at `node`, made if there is none yet.
    fn processing_at(&mut self, node: NodeId) -> ElementId {
        let found = self.elements.iter().position(|s| {
            s.node == node && s.element.as_any().downcast_ref::<Processing>().is_some()
        });
        match found {
            Some(i) => ElementId(i as u32),
            None => self.add_element(node, Box::new(Processing::new()), false),
        }
    }

    fn processing_mut(&mut self, el: ElementId) -> &mut Processing {
        self.elements[el.idx()]
            .element
            .as_any_mut()
            .and_then(|a| a.downcast_mut::<Processing>())
            .expect("a processing element")
    }

    fn retarget_element(&mut self, now: Time, el: ElementId) {
        let slot = &mut self.elements[el.idx()];
        if let Some(t) = slot.element.next_timeout() {
            if slot.armed.is_none_or(|a| t < a) {
                let t = t.max(now);
                slot.armed = Some(t);
                self.queue.schedule(t, Event::ElementTimer { element: el });
            }
        }
    }
}
