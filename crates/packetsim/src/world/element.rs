//! The element adapter: shows packets to node elements, runs their timers, and carries out
//! what they ask (sends, routes, link changes), in order, after each call. One timer event per
//! element at its earliest deadline, as for endpoints.

use super::{Event, World};
use crate::ids::{EgressId, ElementId, NodeId};
use crate::net::{Disposition, Element, ElementCtx, Request, Via};
use crate::packet::IP_HEADER_BYTES;
use packetsim_kernel::Time;

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
                    }
                }
                Request::InstallRoute { node, route } => self.net.install_route(node, route),
                Request::RemoveRoute { node, dst } => {
                    self.net.remove_route(node, dst);
                }
                Request::Link { egress, change } => self.change_link(now, egress, change),
                Request::Notify { node, notice } => self.notify(now, node, notice),
            }
        }
        self.ectx = ctx;
        self.retarget_element(now, el);
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
