//! The in-memory store's bookkeeping: which entries it holds, in which
//! order, what each caller holds, and what it drops to make room or at the
//! end of an entry's time, counted as evictions.

use std::sync::Arc;
use std::time::Duration;

use super::{Body, NewSlot, STORE_NAME, Slot, State, is_expired};
use crate::token::Token;

/// Why an entry was evicted, as the eviction counter's `reason` says.
#[derive(Debug, Clone, Copy)]
enum Eviction {
    /// To make room for another.
    Full,
    /// At the end of its time to live.
    Expired,
}

impl Eviction {
    fn as_str(self) -> &'static str {
        match self {
            Eviction::Full => "full",
            Eviction::Expired => "expired",
        }
    }
}

impl State {
    pub(super) fn insert(
        &mut self,
        token: Token,
        new: NewSlot,
        now: Duration,
        cost: usize,
        disk: u64,
    ) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.insert(seq, token.clone());
        self.bytes += cost;
        if disk > 0 {
            self.disk_bytes += disk;
            self.on_disk.insert(seq);
        }
        self.hold(&new.owner.caller, cost, Some(seq));
        let slot = Slot {
            seq,
            stored_at: now,
            cost,
            owner: new.owner,
            origin: new.origin,
            digest: new.digest,
            body: new.body,
        };
        self.entries.insert(token, slot);
    }

    pub(super) fn remove(&mut self, token: &Token) {
        if let Some(slot) = self.entries.remove(token) {
            self.order.remove(&slot.seq);
            self.forget(slot);
        }
    }

    pub(super) fn evict_oldest(&mut self) {
        self.evict_oldest_for(Eviction::Full);
    }

    fn evict_oldest_for(&mut self, reason: Eviction) {
        if let Some(&seq) = self.order.keys().next() {
            self.evict_for(seq, reason);
        }
    }

    /// Drops the entry stored with sequence number `seq` to make room.
    pub(super) fn evict(&mut self, seq: u64) {
        self.evict_for(seq, Eviction::Full);
    }

    /// Drops the entry stored with sequence number `seq`, counted as
    /// evicted for `reason`.
    fn evict_for(&mut self, seq: u64, reason: Eviction) {
        if let Some(token) = self.order.remove(&seq) {
            let slot = self
                .entries
                .remove(&token)
                .expect("every ordered token has an entry");
            self.forget(slot);
            metrics::counter!(
                crate::telemetry::STORE_EVICTIONS,
                "mcp_light.store.tier" => STORE_NAME,
                "reason" => reason.as_str()
            )
            .increment(1);
        }
    }

    /// Takes a removed slot off the byte counts and its caller's record.
    /// Its files, if any, go when the last reader lets go of them.
    fn forget(&mut self, slot: Slot) {
        self.bytes -= slot.cost;
        if let Body::Disk { cost, .. } = slot.body {
            self.disk_bytes -= cost;
            self.on_disk.remove(&slot.seq);
        }
        let caller = slot.owner.caller.as_str();
        let Some(name) = self
            .callers
            .get_key_value(caller)
            .map(|(name, _)| name.clone())
        else {
            return;
        };
        let held = self.callers.get_mut(caller).expect("just found");
        self.by_bytes.remove(&(held.bytes, name.clone()));
        held.bytes -= slot.cost;
        held.seqs.remove(&slot.seq);
        if held.seqs.is_empty() {
            self.callers.remove(caller);
        } else {
            self.by_bytes.insert((held.bytes, name));
        }
    }

    /// Adds `bytes` (and the entry `seq`, if a new one) to what `caller`
    /// holds.
    pub(super) fn hold(&mut self, caller: &str, bytes: usize, seq: Option<u64>) {
        let name = match self.callers.get_key_value(caller) {
            Some((name, _)) => name.clone(),
            None => Arc::from(caller),
        };
        let held = self.callers.entry(name.clone()).or_default();
        self.by_bytes.remove(&(held.bytes, name.clone()));
        held.bytes += bytes;
        held.seqs.extend(seq);
        self.by_bytes.insert((held.bytes, name));
    }

    /// Drops expired entries from the oldest on, stopping at the first live
    /// one: with one TTL for all, everything newer is live too.
    pub(super) fn sweep_expired(&mut self, now: Duration, ttl: Duration) {
        while let Some((_, token)) = self.order.first_key_value() {
            if !is_expired(&self.entries[token], now, ttl) {
                break;
            }
            self.evict_oldest_for(Eviction::Expired);
        }
    }
}
