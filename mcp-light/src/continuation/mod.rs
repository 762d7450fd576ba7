//! Continuation: results kept behind a token, and handed back to the caller
//! they were minted for.
//!
//! This module is the only one that mints tokens, writes to the store and
//! reads from it. A token is minted only where the schema of the tool the
//! caller called has a `continuation_token` property (the caller decides
//! that with [`Continuations::take_token`]'s `discloses`), and only when a
//! store took the result. A redemption checks the owner — the caller's
//! identity and the tool it called — before anything is served, and never
//! runs the tool again. The entry keeps the OAuth scopes the tool that made
//! it required: every redemption, on whatever route it comes (the tool, a
//! dispatcher, the viewer's own tools), is checked against what the
//! caller's access token grants now, and one that lacks them gets the
//! answer an unknown token gets.
//!
//! While the store is failing, answers go on without tokens: the first
//! failure of an outage is logged, the recovery once more.
//!
//! # Files
//!
//! - here: [`Continuations`], which keeps results and redeems tokens;
//! - `keep/`: a read's result kept, serialized item by item into the store
//!   as it is produced;
//!
//! A heavy tool's answer of items one at a time is `items/`
//! (`mcp_light::items`); the tokens themselves are `token/`
//! (`mcp_light::token`), beneath the store that keys by them.
//!
//! How each mode of a heavy read is served, from a value or from the store,
//! is the heavy reads' (`heavy/`); where a result waits is the store's
//! (`store/`).

pub(crate) mod keep;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};

use crate::call::args;
use crate::call::outcome::call_error::Name;
use crate::call::outcome::{Answer, CallError, TokenUse, Unkept};
use crate::context::Caller;
use crate::heavy::{self, Digest, HeavyConfig, Negotiation, Served, StoredResult};
use crate::principal::GrantedScopes;
use crate::runtime::off_workers;
use crate::store::{
    ContinuationStore, Entry, EntryInfo, EntryWriter, Origin, Owner, StoreError, StoredItems,
};
use crate::telemetry::StoreMetrics;
use crate::token::Token;
use crate::tool::schema::CONTINUATION_TOKEN;
use crate::usage::UsageReport;

/// Who called which tool. The [`Owner`] of a stored result is built from it
/// only when something is stored or redeemed, not on every call.
#[derive(Debug, Clone)]
pub(crate) struct Called {
    pub(crate) caller: Caller,
    /// The tool the caller called: the dispatcher, when routed.
    pub(crate) tool: Cow<'static, str>,
}

impl Called {
    /// `caller`'s call of the tool named `tool`.
    pub(crate) fn new(caller: Caller, tool: Cow<'static, str>) -> Called {
        Called { caller, tool }
    }

    /// The owner of what this call keeps, made by a tool that requires
    /// `scopes` (the routed tool, through a dispatcher).
    fn owner(&self, scopes: &[&str]) -> Owner {
        Owner {
            caller: self.caller.identity(),
            tool: self.tool.clone().into_owned(),
            scopes: scopes.iter().map(|&scope| scope.to_owned()).collect(),
        }
    }
}

/// A server's continuation machinery: the store, whether it is failing, and
/// the limits heavy results are served with.
pub(crate) struct Continuations {
    store: Option<Arc<dyn ContinuationStore>>,
    /// Set while the store is failing, so an outage is logged once, not on
    /// every call.
    failing: AtomicBool,
    heavy: HeavyConfig,
    /// The store's name in traces and metrics; `none` without a store.
    store_name: &'static str,
    /// The keys of the store's metrics.
    metrics: StoreMetrics,
}

impl Continuations {
    pub(crate) fn new(store: Option<Arc<dyn ContinuationStore>>, heavy: HeavyConfig) -> Self {
        let store_name = store.as_ref().map_or("none", |store| store.name());
        Continuations {
            store_name,
            metrics: StoreMetrics::new(store_name),
            store,
            failing: AtomicBool::new(false),
            heavy,
        }
    }

    /// The store's name in traces and metrics.
    pub(crate) fn store_name(&self) -> &'static str {
        self.store_name
    }

    /// The store, if any, as an audit looks at it.
    pub(crate) fn store(&self) -> Option<&Arc<dyn ContinuationStore>> {
        self.store.as_ref()
    }

    pub(crate) fn heavy(&self) -> &HeavyConfig {
        &self.heavy
    }

    /// A token may be minted: the caller's schema `discloses` continuation
    /// and there is a store to keep the result in.
    pub(crate) fn can_mint(&self, discloses: bool) -> bool {
        discloses && self.store.is_some()
    }

    /// Takes the token off a call whose schema `discloses` continuation;
    /// `null` counts as absent. Where the schema does not disclose, a
    /// `continuation_token` is left to the tool's own argument parsing,
    /// which refuses it as an unknown field.
    pub(crate) fn take_token(discloses: bool, args: &mut Map<String, Value>) -> Option<Value> {
        if !discloses {
            return None;
        }
        args::take(args, CONTINUATION_TOKEN).filter(|token| !token.is_null())
    }

    /// Keeps `body` for `called` under a fresh token, or `None` when that
    /// cannot be done (no store, no randomness, the store refused).
    pub(crate) async fn keep(
        &self,
        called: &Called,
        scopes: &[&str],
        origin: Origin,
        body: Vec<u8>,
    ) -> Option<Token> {
        let store = self.store.as_ref()?;
        let token = Token::mint().ok()?;
        let bytes = body.len() as u64;
        match store
            .put(&token, Entry::new(called.owner(scopes), origin, body))
            .await
        {
            Ok(()) => {
                self.store_worked();
                self.stored(bytes);
                Some(token)
            }
            Err(error) => {
                self.store_failed(&error);
                None
            }
        }
    }

    /// Starts an entry for `called` under a fresh token, to be written
    /// chunk by chunk; or says why it cannot be.
    pub(crate) async fn begin(
        &self,
        called: &Called,
        scopes: &[&str],
        origin: Origin,
    ) -> Result<(Token, Box<dyn EntryWriter + '_>), Unkept> {
        let Some(store) = self.store.as_ref() else {
            return Err(Unkept::NoStore);
        };
        let token = Token::mint().map_err(Unkept::NoRandomness)?;
        match store
            .begin(token.clone(), called.owner(scopes), origin)
            .await
        {
            Ok(writer) => Ok((token, writer)),
            Err(error) => {
                self.store_failed(&error);
                Err(Unkept::Store(error))
            }
        }
    }

    /// Whether the store answers its readiness probe
    /// ([`ContinuationStore::ready`]); a server without a store is ready.
    /// A failure starts an outage as a failed write does (logged once), a
    /// success ends it.
    pub(crate) async fn ready(&self) -> Result<(), StoreError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        match store.ready().await {
            Ok(()) => {
                self.store_worked();
                Ok(())
            }
            Err(error) => {
                self.store_failed(&error);
                Err(error)
            }
        }
    }

    /// Counts a result of `bytes` written to the store.
    pub(crate) fn stored(&self, bytes: u64) {
        self.metrics.stored(bytes);
    }

    /// Notes that the store took a result: an outage, if one was logged,
    /// is over.
    pub(crate) fn store_worked(&self) {
        if self.failing.swap(false, Ordering::Relaxed) {
            tracing::info!("the continuation store is taking results again");
        }
    }

    /// Notes that the store failed `error`, logging the first failure of an
    /// outage. A result the store
    /// refuses as too large, or has no room for, is refused by a store
    /// that works: no outage to report, none to recover from.
    pub(crate) fn store_failed(&self, error: &StoreError) {
        self.metrics.failed(match error {
            StoreError::Unavailable(_) => "unavailable",
            StoreError::TooLarge { .. } => "too_large",
            StoreError::Full(_) => "full",
        });
        if matches!(error, StoreError::Unavailable(_))
            && !self.failing.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                %error,
                "cannot store a result for continuation; answering without tokens until the store recovers"
            );
        }
    }

    /// Serves the result stored under `token` to `called`, as the remaining
    /// `args` (the negotiation fields) ask, in answers no larger than the
    /// caller's client `keeps`; the tool is never run. With a
    /// `usage` report, the stored result's counts go in the answer's
    /// outcome. With `granted` (the caller's access token says what it
    /// grants), the entry is served only if they hold every scope the tool
    /// that made it required.
    ///
    /// A list is served by range at any size: a page (or a filtered page)
    /// reads just its items, a summary the digest kept beside the list.
    /// Only `full`, and any mode of a result that is not a list, read the
    /// whole result, up to [`HeavyConfig::max_full_bytes`].
    pub(crate) async fn redeem(
        &self,
        called: &Called,
        token: Value,
        mut args: Map<String, Value>,
        usage: Option<&UsageReport>,
        granted: Option<&GrantedScopes>,
        keeps: usize,
    ) -> Answer {
        let tool = &called.tool;
        let negotiation = match heavy::take_negotiation(&mut args, &self.heavy, keeps) {
            Ok(negotiation) => negotiation,
            Err(error) => return Answer::error(error.invalid_arguments(tool)),
        };
        let Some(token) = token.as_str().and_then(Token::parse) else {
            return Answer::error(CallError::BadToken { tool: tool.clone() });
        };
        let Some(store) = &self.store else {
            return Answer::error(CallError::NoStore { tool: tool.clone() });
        };
        let redemption = Redemption {
            continuations: self,
            store: store.as_ref(),
            token: &token,
            called,
            usage,
            granted,
        };
        match heavy::serve_from_store(&redemption, negotiation).await {
            Ok(answer) => answer.with_token(TokenUse::Redeemed, self.store_name),
            Err(error) => error,
        }
    }

    /// The tool whose answer carried `token`, when `caller` may redeem it:
    /// what the viewer's tools redeem a token through when the host did
    /// not say which tool answered. `None` for every token this caller
    /// cannot redeem (not a token, unknown, expired, another caller's), so
    /// someone else's live token tells nothing a dead one does not.
    #[cfg(feature = "apps")]
    pub(crate) async fn kept_through(
        &self,
        caller: &Caller,
        token: &Value,
    ) -> Result<Option<String>, StoreError> {
        let (Some(store), Some(token)) = (&self.store, token.as_str().and_then(Token::parse))
        else {
            return Ok(None);
        };
        let info = store.info(&token).await?;
        Ok(info
            .filter(|info| info.owner.caller == caller.identity())
            .map(|info| info.owner.tool))
    }
}

/// One redemption: the token, and whose it must be.
struct Redemption<'r> {
    continuations: &'r Continuations,
    store: &'r dyn ContinuationStore,
    token: &'r Token,
    called: &'r Called,
    usage: Option<&'r UsageReport>,
    /// What the caller's access token grants, when it says.
    granted: Option<&'r GrantedScopes>,
}

/// The reads a mode makes ([`heavy::serve_from_store`] decides which), each
/// refused unless the entry is this caller's, through this tool.
impl StoredResult for Redemption<'_> {
    fn tool(&self) -> &Name {
        &self.called.tool
    }

    fn config(&self) -> &HeavyConfig {
        self.continuations.heavy()
    }

    fn reports_usage(&self) -> bool {
        self.usage.is_some()
    }

    async fn items(&self, range: Range<usize>) -> Result<StoredItems, Answer> {
        let found = self
            .store
            .get_items(self.token, range)
            .await
            .map_err(|error| self.unavailable(error))?;
        let found = found.ok_or_else(|| self.refused())?;
        let owner = match &found {
            StoredItems::List(list) => &list.owner,
            StoredItems::Whole(entry) => &entry.owner,
        };
        self.check_owner(owner)?;
        Ok(found)
    }

    async fn info(&self) -> Result<EntryInfo, Answer> {
        let info = self
            .store
            .info(self.token)
            .await
            .map_err(|error| self.unavailable(error))?
            .ok_or_else(|| self.refused())?;
        self.check_owner(&info.owner)?;
        Ok(info)
    }

    async fn entry(&self) -> Result<Entry, Answer> {
        self.get().await?.ok_or_else(|| self.refused())
    }

    /// `answer` with the stored result's counts, read from its digest, or
    /// counted from the whole result when it was kept without one (a
    /// write's, put whole) and is small enough to read; only with a usage
    /// report is any of this read.
    async fn counted_from_info(&self, answer: Answer) -> Served {
        let Some(usage) = self.usage else {
            return Ok(answer);
        };
        let info = self.info().await?;
        let mut full = Digest::counts_in(info.digest.as_deref());
        if full.is_none() && info.size <= self.continuations.heavy().max_full_bytes as u64 {
            full = self
                .get()
                .await?
                .map(|entry| usage.count_stored(&entry.body));
        }
        Ok(answer.counting(full))
    }

    /// The whole stored `entry` as `negotiation` asks; off the async
    /// workers when it is large ([`off_workers`]).
    async fn serve_whole(&self, entry: Entry, negotiation: Negotiation) -> Served {
        let config = self.continuations.heavy().clone();
        let (body, origin) = (Arc::clone(&entry.body), entry.origin);
        let tool = self.called.tool.clone();
        let served = off_workers(body.len(), move || {
            heavy::serve_body(&body, origin, &negotiation, &config, tool)
        })
        .await
        .unwrap_or_else(|unfinished| Answer::unfinished(&self.called.tool, unfinished));
        if served.outcome().error().is_some() {
            return Err(served);
        }
        let full = self.usage.map(|usage| {
            Digest::counts_in(entry.digest.as_deref())
                .unwrap_or_else(|| usage.count_stored(&entry.body))
        });
        Ok(served.counting(full))
    }
}

// Both sides of these results are the answer, of one size: boxing the
// early one would only add an allocation to every refusal.
#[allow(clippy::result_large_err)]
impl Redemption<'_> {
    async fn get(&self) -> Result<Option<Entry>, Answer> {
        let entry = self
            .store
            .get(self.token)
            .await
            .map_err(|error| self.unavailable(error))?;
        if let Some(entry) = &entry {
            self.check_owner(&entry.owner)?;
        }
        Ok(entry)
    }

    /// Refuses an entry that is not this caller's through this tool, or
    /// whose maker's scopes the caller's access token no longer grants.
    fn check_owner(&self, owner: &Owner) -> Result<(), Answer> {
        let called = self.called;
        let granted = match self.granted {
            Some(granted) => owner.scopes.iter().all(|scope| granted.contains(scope)),
            None => true,
        };
        if granted && owner.tool == called.tool && owner.caller == called.caller.identity() {
            Ok(())
        } else {
            // Word for word the answer to an unknown token: a caller cannot
            // tell someone else's live token, or one it may no longer read,
            // from a dead one.
            Err(self.refused())
        }
    }

    /// The one answer to a token this caller cannot redeem through this
    /// tool, whatever the reason: unknown, expired, another caller's or
    /// another tool's, or made by a tool whose scopes the caller lacks.
    fn refused(&self) -> Answer {
        Answer::error(CallError::TokenRefused {
            tool: self.called.tool.clone(),
        })
    }

    fn unavailable(&self, error: StoreError) -> Answer {
        Answer::error(CallError::StoreUnavailable {
            tool: self.called.tool.clone(),
            error,
        })
    }
}

impl std::fmt::Debug for Continuations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Continuations")
            .field("store", &self.store.is_some())
            .field("failing", &self.failing.load(Ordering::Relaxed))
            .field("heavy", &self.heavy)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::principal::Principal;

    #[test]
    fn every_kind_of_caller_owns_what_it_stores_under_the_identity_it_always_had() {
        // The owners stores have written down: they must keep matching.
        for (caller, written) in [
            (
                Caller::Principal(Principal::from("alice")),
                "principal:alice",
            ),
            (Caller::Session("3f2a".into()), "session:3f2a"),
            (Caller::Process, "process"),
            (Caller::Anonymous, "anonymous"),
        ] {
            let called = Called::new(caller.clone(), Cow::Borrowed("device_list"));
            assert_eq!(
                called.owner(&[]),
                Owner::new(written, "device_list"),
                "{caller:?}"
            );
            assert_eq!(caller.identity(), written);
        }
        // A principal named like a session is still a principal.
        let spoof = Called::new(
            Caller::Principal(Principal::from("session:3f2a")),
            Cow::Borrowed("device_list"),
        );
        assert_ne!(spoof.owner(&[]), Owner::new("session:3f2a", "device_list"));
    }
}
