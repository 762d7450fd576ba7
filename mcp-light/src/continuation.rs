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

use crate::answer::{error_result, full_result, full_result_with_text, shaped_result};
use crate::args;
use crate::context::Caller;
use crate::heavy::{self, Digest, HeavyConfig, Mode, Negotiation, NegotiationError, Shape};
use crate::offload::off_workers;
use crate::schema::CONTINUATION_TOKEN;
use crate::store::{
    ContinuationStore, Entry, EntryInfo, EntryWriter, ListItems, Origin, Owner, StoreError,
    StoredItems,
};
use crate::telemetry::StoreMetrics;
use crate::token::Token;
use crate::usage::{Counts, UsageReport};

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
        origin: Origin,
        body: Vec<u8>,
    ) -> Option<Token> {
        let store = self.store.as_ref()?;
        let token = self.mint().ok()?;
        let bytes = body.len() as u64;
        match store
            .put(&token, Entry::new(called.owner(), origin, body))
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

    /// A fresh token, or why none could be drawn.
    fn mint(&self) -> Result<Token, String> {
        Token::mint().map_err(|error| format!("no random token could be drawn: {error}"))
    }

    /// Starts an entry for `called` under a fresh token, to be written
    /// chunk by chunk; or says why it cannot be.
    pub(crate) async fn begin(
        &self,
        called: &Called,
        origin: Origin,
    ) -> Result<(Token, Box<dyn EntryWriter + '_>), String> {
        let Some(store) = self.store.as_ref() else {
            return Err("this server keeps no continuation store".to_owned());
        };
        let token = self.mint()?;
        match store.begin(token.clone(), called.owner(), origin).await {
            Ok(writer) => Ok((token, writer)),
            Err(error) => Err(self.store_failed(&error)),
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
    /// outage; answers the reason, for the caller. A result the store
    /// refuses as too large, or has no room for, is refused by a store
    /// that works: no outage to report, none to recover from.
    pub(crate) fn store_failed(&self, error: &StoreError) -> String {
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
        error.to_string()
    }

    /// Serves the result stored under `token` to `called`, as the remaining
    /// `args` (the negotiation fields) ask; the tool is never run. With a
    /// `usage` report, what is served is reported against the stored result.
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
        let redemption = Redemption {
            continuations: self,
            store: store.as_ref(),
            token: &token,
            called,
            start_again,
            usage,
        };
        match redemption.serve(negotiation).await {
            Ok(answer) | Err(answer) => answer,
        }
    }
}

/// One redemption: the token, whose it must be, and how to answer a
/// refusal.
struct Redemption<'r> {
    continuations: &'r Continuations,
    store: &'r dyn ContinuationStore,
    token: &'r Token,
    called: &'r Called,
    start_again: String,
    usage: Option<&'r UsageReport>,
}

/// A redemption's answer; `Err` for one that ends it early (refused,
/// failed), which is an answer too.
type Served = Result<CallToolResult, CallToolResult>;

// Both sides of these results are the answer, of one size: boxing the
// early one would only add an allocation to every refusal.
#[allow(clippy::result_large_err)]
impl Redemption<'_> {
    async fn serve(&self, negotiation: Negotiation) -> Served {
        if negotiation.mode == Mode::Paginated {
            return match self.items(&negotiation).await? {
                StoredItems::List(list) => {
                    let page = self.page(list, &negotiation, false)?;
                    self.reported_from_info(page).await
                }
                StoredItems::Whole(entry) => self.whole(entry, negotiation).await,
            };
        }
        let info = self.info().await?;
        let digest = info.digest.as_deref().and_then(Digest::from_bytes);
        let full_counts = digest.as_ref().and_then(Digest::full_counts);
        match (&negotiation.mode, &digest) {
            (Mode::Summary, Some(digest)) => {
                return Ok(self.reported(full_result(digest.summary.clone()), full_counts));
            }
            (Mode::Filtered, Some(digest)) if matches!(digest.shape, Shape::List { .. }) => {
                if let Err(error) = heavy::check_list_keys(digest, &negotiation) {
                    return Err(self.invalid(error));
                }
                if let StoredItems::List(list) = self.items(&negotiation).await? {
                    let page = self.page(list, &negotiation, true)?;
                    return Ok(self.reported(page, full_counts));
                }
            }
            _ => {}
        }
        let config = self.continuations.heavy();
        if info.size > config.max_full_bytes as u64 {
            return Err(error_result(format!(
                "the stored result of `{tool}` is {size} bytes, more than the {limit} bytes \
                 answered whole; {modes}",
                tool = self.called.tool,
                size = info.size,
                limit = config.max_full_bytes,
                modes = match digest.map(|digest| digest.shape) {
                    Some(Shape::List { .. }) =>
                        "ask for mode paginated (with page and page_size), filtered (with filter_keys) or summary instead",
                    _ =>
                        "ask for mode summary instead, or narrow the read with the tool's own arguments",
                },
            )));
        }
        let Some(entry) = self.get().await? else {
            return Err(refused(&self.start_again));
        };
        self.whole(entry, negotiation).await
    }

    /// The page's items, read by range; the whole entry when it is not a
    /// list. Refused unless it is this caller's, through this tool.
    async fn items(&self, negotiation: &Negotiation) -> Result<StoredItems, CallToolResult> {
        let found = self
            .store
            .get_items(self.token, heavy::page_range(negotiation))
            .await
            .map_err(|error| self.unavailable(&error))?;
        let found = found.ok_or_else(|| refused(&self.start_again))?;
        let owner = match &found {
            StoredItems::List(list) => &list.owner,
            StoredItems::Whole(entry) => &entry.owner,
        };
        self.check_owner(owner)?;
        Ok(found)
    }

    async fn info(&self) -> Result<EntryInfo, CallToolResult> {
        let info = self
            .store
            .info(self.token)
            .await
            .map_err(|error| self.unavailable(&error))?
            .ok_or_else(|| refused(&self.start_again))?;
        self.check_owner(&info.owner)?;
        Ok(info)
    }

    async fn get(&self) -> Result<Option<Entry>, CallToolResult> {
        let entry = self
            .store
            .get(self.token)
            .await
            .map_err(|error| self.unavailable(&error))?;
        if let Some(entry) = &entry {
            self.check_owner(&entry.owner)?;
        }
        Ok(entry)
    }

    fn check_owner(&self, owner: &Owner) -> Result<(), CallToolResult> {
        if *owner == self.called.owner() {
            Ok(())
        } else {
            // Word for word the answer to an unknown token: a caller cannot
            // tell someone else's live token from a dead one.
            Err(refused(&self.start_again))
        }
    }

    fn unavailable(&self, error: &StoreError) -> CallToolResult {
        error_result(format!(
            "{error}; try again shortly, or {}",
            self.start_again
        ))
    }

    fn invalid(&self, error: NegotiationError) -> CallToolResult {
        error_result(format!(
            "invalid arguments for `{}`: {error}",
            self.called.tool
        ))
    }

    /// A page of a stored list from the items the store read for it: only
    /// those are parsed (and, for `filtered`, narrowed to its keys).
    fn page(&self, list: ListItems, negotiation: &Negotiation, narrow: bool) -> Served {
        let items: Result<Vec<Value>, _> = list
            .items
            .iter()
            .map(|item| serde_json::from_slice::<Value>(item))
            .collect();
        let mut items = items.map_err(|error| {
            error_result(format!(
                "the stored result of `{}` is damaged ({error}); {}",
                self.called.tool, self.start_again
            ))
        })?;
        if narrow {
            items = items
                .into_iter()
                .map(|item| heavy::narrow_item(item, &negotiation.filter_keys))
                .collect();
        }
        Ok(shaped_result(&heavy::page_of_items(
            items,
            list.total,
            negotiation,
        )))
    }

    /// The whole stored `entry` as `negotiation` asks; off the async
    /// workers when it is large ([`off_workers`]).
    async fn whole(&self, entry: Entry, negotiation: Negotiation) -> Served {
        let config = self.continuations.heavy().clone();
        if entry.body.len() > config.max_full_bytes {
            return Err(error_result(format!(
                "the stored result of `{}` is {} bytes, more than the {} bytes answered whole; \
                 ask for mode summary instead",
                self.called.tool,
                entry.body.len(),
                config.max_full_bytes
            )));
        }
        let (body, origin) = (Arc::clone(&entry.body), entry.origin);
        let tool = self.called.tool.to_string();
        let start_again = self.start_again.clone();
        let mut served = off_workers(body.len(), move || {
            serve_stored(&body, origin, &negotiation, &config, &tool, &start_again)
        })
        .await
        .unwrap_or_else(|unfinished| unfinished.answer(&self.called.tool));
        if let Some(usage) = self.usage.filter(|_| served.is_error != Some(true)) {
            let full = Digest::counts_in(entry.digest.as_deref())
                .unwrap_or_else(|| usage.count_stored(&entry.body));
            usage.attach(&mut served, full);
        }
        Ok(served)
    }

    /// `answer` with the usage report, `full` counting the stored result.
    fn reported(&self, mut answer: CallToolResult, full: Option<Counts>) -> CallToolResult {
        if let (Some(usage), Some(full)) = (self.usage, full) {
            usage.attach(&mut answer, full);
        }
        answer
    }

    /// `answer` with the usage report, the stored result's counts read from
    /// its digest, or counted from the whole result when it was kept
    /// without one (a write's, put whole) and is small enough to read; only
    /// with a report is any of this read.
    async fn reported_from_info(&self, answer: CallToolResult) -> Served {
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
        Ok(self.reported(answer, full))
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
