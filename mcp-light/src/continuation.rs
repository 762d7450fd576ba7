//! Continuation: results kept behind a token, and handed back to the caller
//! they were minted for.
//!
//! This module is the only one that mints tokens, writes to the store and
//! reads from it. A token is minted only where the schema of the tool the
//! caller called has a `continuation_token` property (the caller decides
//! that with [`Continuations::take_token`]'s `discloses`), and only when a
//! store took the result. A redemption checks the owner — the caller's
//! identity and the tool it called — before anything is served, and never
//! runs the tool again.
//!
//! While the store is failing, answers go on without tokens: the first
//! failure of an outage is logged, the recovery once more.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::answer::{error_result, full_result, full_result_with_text, lean_result};
use crate::args;
use crate::context::Caller;
use crate::heavy::{self, HeavyConfig, Mode, Negotiation};
use crate::offload::off_workers;
use crate::schema::CONTINUATION_TOKEN;
use crate::store::{ContinuationStore, Entry, ListItems, Origin, Owner, StoreError, StoredItems};
use crate::token::Token;
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
    fn owner(&self) -> Owner {
        Owner {
            caller: self.caller.identity(),
            tool: self.tool.clone().into_owned(),
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
}

impl Continuations {
    pub(crate) fn new(store: Option<Arc<dyn ContinuationStore>>, heavy: HeavyConfig) -> Self {
        Continuations {
            store,
            failing: AtomicBool::new(false),
            heavy,
        }
    }

    /// The same store and limits, with a fresh outage flag.
    pub(crate) fn with_store(&self, store: Option<Arc<dyn ContinuationStore>>) -> Self {
        Continuations::new(store, self.heavy.clone())
    }

    /// The same store, served with other limits.
    pub(crate) fn with_heavy(&self, heavy: HeavyConfig) -> Self {
        Continuations::new(self.store.clone(), heavy)
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

    /// Takes the negotiation fields off the first call of a heavy tool: there
    /// is nothing to negotiate until a token comes back, but they must be
    /// well formed.
    pub(crate) fn strip_negotiation(&self, args: &mut Map<String, Value>) -> Result<(), String> {
        heavy::take_negotiation(args, &self.heavy)
            .map(drop)
            .map_err(|error| error.to_string())
    }

    /// Keeps `body` for `called` under a fresh token, or `None` when that
    /// cannot be done (no store, no randomness, the store refused).
    pub(crate) async fn keep(
        &self,
        called: &Called,
        origin: Origin,
        body: Vec<u8>,
    ) -> Option<Token> {
        self.keep_or_why(called, origin, body).await.ok()
    }

    /// [`keep`](Continuations::keep), saying why when it cannot.
    async fn keep_or_why(
        &self,
        called: &Called,
        origin: Origin,
        body: Vec<u8>,
    ) -> Result<Token, String> {
        let Some(store) = self.store.as_ref() else {
            return Err("this server keeps no continuation store".to_owned());
        };
        let stored = match Token::mint() {
            Ok(token) => {
                let entry = Entry {
                    owner: called.owner(),
                    origin,
                    body: body.into(),
                };
                match store.put(&token, entry).await {
                    Ok(()) => Ok(token),
                    // A result over the store's limit is refused by a store
                    // that works: no outage to report, none to recover from.
                    Err(error @ StoreError::TooLarge { .. }) => return Err(error.to_string()),
                    Err(error) => Err(error.to_string()),
                }
            }
            Err(error) => Err(format!("no random token could be drawn: {error}")),
        };
        match stored {
            Ok(token) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!("the continuation store is taking results again");
                }
                Ok(token)
            }
            Err(error) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        %error,
                        "cannot store a result for continuation; answering without tokens until the store recovers"
                    );
                }
                Err(error)
            }
        }
    }

    /// A heavy read's first answer: the probe, `value` kept under a token.
    /// When it cannot be kept, `value` in full if it is within the size
    /// backstop, and otherwise a probe without token that summarizes it and
    /// says why: never a large result inline.
    pub(crate) async fn probe(
        &self,
        called: &Called,
        value: Value,
        body: Vec<u8>,
    ) -> CallToolResult {
        let total_size = body.len();
        match self.keep_or_why(called, Origin::Read, body).await {
            Ok(token) => lean_result(heavy::probe(
                &called.tool,
                &value,
                total_size,
                &token,
                &self.heavy,
            )),
            Err(_) if !self.heavy.over_backstop(total_size) => full_result(value),
            Err(why) => {
                let (tool, heavy) = (called.tool.clone(), self.heavy.clone());
                lean_result(
                    off_workers(total_size, move || {
                        heavy::unkept_probe(&tool, &value, total_size, &why, &heavy)
                    })
                    .await,
                )
            }
        }
    }

    /// Serves the result stored under `token` to `called`, as the remaining
    /// `args` (the negotiation fields) ask; the tool is never run. With a
    /// `usage` report, what is served is reported against the stored result.
    pub(crate) async fn redeem(
        &self,
        called: &Called,
        token: Value,
        mut args: Map<String, Value>,
        usage: Option<&UsageReport>,
    ) -> CallToolResult {
        let tool = &called.tool;
        let start_again = format!("start again by calling `{tool}` without `continuation_token`");
        let negotiation = match heavy::take_negotiation(&mut args, &self.heavy) {
            Ok(negotiation) => negotiation,
            Err(error) => return error_result(format!("invalid arguments for `{tool}`: {error}")),
        };
        let Some(token) = token.as_str().and_then(Token::parse) else {
            return error_result(format!(
                "`continuation_token` must be the token string a previous answer of `{tool}` gave; {start_again}"
            ));
        };
        let Some(store) = &self.store else {
            return error_result(format!(
                "this server keeps no continuation store, so no token redeems; {start_again}"
            ));
        };
        // A page is read by range: a store moves that page's items, not the
        // whole result (10 MB for a page of 20 items is what this avoids).
        // A usage report counts the whole stored result, so it reads it all.
        let found = if negotiation.mode == Mode::Paginated && usage.is_none() {
            store
                .get_items(&token, heavy::page_range(&negotiation))
                .await
        } else {
            store
                .get(&token)
                .await
                .map(|found| found.map(StoredItems::Whole))
        };
        let found = match found {
            Ok(Some(found)) => found,
            Ok(None) => return refused(&start_again),
            Err(error) => {
                return error_result(format!("{error}; try again shortly, or {start_again}"));
            }
        };
        let owner = match &found {
            StoredItems::List(list) => &list.owner,
            StoredItems::Whole(entry) => &entry.owner,
        };
        if *owner != called.owner() {
            // Word for word the answer to an unknown token: a caller cannot
            // tell someone else's live token from a dead one.
            return refused(&start_again);
        }
        let entry = match found {
            StoredItems::List(list) => return self.page(tool, list, &negotiation, &start_again),
            StoredItems::Whole(entry) => entry,
        };
        let mut served = self.serve(&entry, negotiation, tool, start_again).await;
        if let Some(usage) = usage.filter(|_| served.is_error != Some(true)) {
            usage.attach(&mut served, usage.count_stored(&entry.body));
        }
        served
    }

    /// The whole stored `entry` as `negotiation` asks; off the async
    /// workers when it is large ([`off_workers`]).
    async fn serve(
        &self,
        entry: &Entry,
        negotiation: Negotiation,
        tool: &str,
        start_again: String,
    ) -> CallToolResult {
        let (body, origin, heavy) = (Arc::clone(&entry.body), entry.origin, self.heavy.clone());
        let tool = tool.to_owned();
        off_workers(body.len(), move || {
            serve_stored(&body, origin, &negotiation, &heavy, &tool, &start_again)
        })
        .await
    }

    /// A page of a stored list from the items the store read for it: only
    /// those are parsed.
    fn page(
        &self,
        tool: &str,
        list: ListItems,
        negotiation: &Negotiation,
        start_again: &str,
    ) -> CallToolResult {
        let items: Result<Vec<Value>, _> = list
            .items
            .iter()
            .map(|item| serde_json::from_slice(item))
            .collect();
        match items {
            Ok(items) => full_result(heavy::page_of_items(items, list.total, negotiation)),
            Err(error) => error_result(format!(
                "the stored result of `{tool}` is damaged ({error}); {start_again}"
            )),
        }
    }
}

/// The one answer to a token this caller cannot redeem through this tool,
/// whatever the reason: unknown, expired, or another caller's or another
/// tool's.
fn refused(start_again: &str) -> CallToolResult {
    error_result(format!(
        "this continuation token is unknown, has expired, or was issued to another caller or \
         through another tool; {start_again} (after a write, read what was written with its \
         retrieve tool instead of repeating the write)"
    ))
}

/// The stored result `body` as `negotiation` asks.
fn serve_stored(
    body: &[u8],
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
    tool: &str,
    start_again: &str,
) -> CallToolResult {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return error_result(format!(
                "the stored result is damaged ({error}); {start_again}"
            ));
        }
    };
    if negotiation.mode == Mode::Full {
        // The stored bytes are the result's compact JSON already; only
        // `structuredContent` needs the parsed value.
        let text = String::from_utf8_lossy(body).into_owned();
        return full_result_with_text(value, text);
    }
    match heavy::serve(value, origin, negotiation, config) {
        Ok(value) => full_result(value),
        Err(error) => error_result(format!("invalid arguments for `{tool}`: {error}")),
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
