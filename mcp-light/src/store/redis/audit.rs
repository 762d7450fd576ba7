//! What an audit ([`crate::audit`]) reports of a Redis store: that Redis
//! answers, that it keeps entries across its own restart, and that it
//! keeps each entry for its whole TTL.
//!
//! `INFO` is read for the append-only file and the eviction policy: a
//! managed Redis that refuses `CONFIG` still answers it, and on a Redis
//! Cluster the client asks every master. `CONFIG GET save` (one node of a
//! cluster) tells whether Redis snapshots when there is no append-only
//! file.

use std::collections::HashMap;

use redis::Value;
use redis::aio::ConnectionLike;

use super::RedisStore;
use crate::audit::{Finding, STORE, STORE_EVICTION, STORE_PERSISTENCE};
use crate::store::StoreError;

/// The policy under which Redis evicts nothing, whatever its memory.
const NO_EVICTION: &str = "noeviction";

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    /// `store`, then, when Redis answers, `store persistence` and `store
    /// eviction`.
    pub(super) async fn audit_now(&self) -> Vec<Finding> {
        if let Err(error) = self.ping().await {
            return vec![Finding::error(
                STORE,
                format!(
                    "Redis does not answer a PING: {}; no continuation token is minted \
                     until it does, so check its address and that it runs",
                    why(error)
                ),
            )];
        }
        vec![
            Finding::pass(
                STORE,
                "continuation results are kept in Redis, which answers",
            ),
            self.persistence().await,
            self.eviction().await,
        ]
    }

    /// Whether a restart of Redis keeps the entries: an append-only file on
    /// every master, or else snapshots (`save`).
    async fn persistence(&self) -> Finding {
        let nodes = match self.info("persistence").await {
            Ok(nodes) => nodes,
            Err(error) => {
                return Finding::warning(
                    STORE_PERSISTENCE,
                    format!(
                        "cannot tell whether Redis keeps continuation entries across its \
                         restart: INFO persistence failed ({error}); if it keeps them in \
                         memory only, a restart drops every token minted"
                    ),
                );
            }
        };
        let without_aof: Vec<&Node> = nodes
            .iter()
            .filter(|node| node.field("aof_enabled") != Some("1"))
            .collect();
        if without_aof.is_empty() {
            return Finding::pass(
                STORE_PERSISTENCE,
                "Redis appends every write to its append-only file (appendonly yes): the \
                 tokens minted before a restart redeem after it",
            );
        }
        let on = on_nodes(&without_aof);
        match self.config_get("save").await {
            Ok(save) if !save.trim().is_empty() => Finding::pass(
                STORE_PERSISTENCE,
                format!(
                    "Redis snapshots to disk (save \"{save}\"; appendonly no{on}): a restart \
                     keeps the tokens of its last snapshot, not those minted since \
                     (appendonly yes keeps every one)"
                ),
            ),
            Ok(_) => Finding::warning(
                STORE_PERSISTENCE,
                format!(
                    "Redis keeps continuation entries in memory only (appendonly no, save \
                     \"\"{on}): a restart of Redis drops every token minted, and each caller \
                     holding one must call its tool again; turn on appendonly yes if tokens \
                     should outlive a Redis restart"
                ),
            ),
            Err(error) => Finding::warning(
                STORE_PERSISTENCE,
                format!(
                    "Redis has no append-only file (appendonly no{on}), and whether it \
                     snapshots could not be checked: CONFIG GET save was refused ({error}), \
                     as a managed Redis may refuse it; without snapshots, a restart drops \
                     every token minted, so check the provider's persistence setting"
                ),
            ),
        }
    }

    /// Whether Redis may evict an entry before its TTL: any policy but
    /// `noeviction` under a `maxmemory`.
    async fn eviction(&self) -> Finding {
        let nodes = match self.info("memory").await {
            Ok(nodes) => nodes,
            Err(error) => {
                return Finding::warning(
                    STORE_EVICTION,
                    format!(
                        "cannot tell whether Redis evicts continuation entries before they \
                         expire: INFO memory failed ({error}); set maxmemory-policy \
                         noeviction so that it never does"
                    ),
                );
            }
        };
        let policy = |node: &Node| {
            node.field("maxmemory_policy")
                .unwrap_or("unknown")
                .to_owned()
        };
        let limited = |node: &Node| {
            node.field("maxmemory")
                .and_then(|max| max.parse::<u64>().ok())
                .is_none_or(|max| max > 0)
        };
        let evicting: Vec<&Node> = nodes
            .iter()
            .filter(|node| policy(node) != NO_EVICTION && limited(node))
            .collect();
        if let Some(first) = evicting.first() {
            let limit = first
                .field("maxmemory_human")
                .or(first.field("maxmemory"))
                .unwrap_or("unknown");
            return Finding::warning(
                STORE_EVICTION,
                format!(
                    "Redis may evict continuation entries before they expire \
                     (maxmemory-policy {}, maxmemory {limit}{}): every entry has a TTL, so \
                     a volatile-* policy picks among them as an allkeys-* one does, and a \
                     token whose entry was evicted fails to redeem before the TTL tools/list \
                     promises; set maxmemory-policy noeviction (a full Redis then refuses \
                     new entries, and those calls answer without a token), and size \
                     maxmemory for the results kept for one TTL",
                    policy(first),
                    on_nodes(&evicting)
                ),
            );
        }
        match nodes.iter().find(|node| policy(node) != NO_EVICTION) {
            None => Finding::pass(
                STORE_EVICTION,
                "Redis evicts nothing (maxmemory-policy noeviction): every token lives its \
                 whole TTL, and a full Redis refuses new entries, whose calls answer without \
                 a token",
            ),
            Some(node) => Finding::pass(
                STORE_EVICTION,
                format!(
                    "Redis has no memory limit (maxmemory 0), so its maxmemory-policy {} \
                     evicts nothing; if you set one, set maxmemory-policy noeviction too",
                    policy(node)
                ),
            ),
        }
    }

    /// `INFO section` of every node the command reaches: the one Redis, or
    /// every master of a cluster.
    async fn info(&self, section: &str) -> Result<Vec<Node>, String> {
        let mut connection = self.connection.clone();
        let mut command = redis::cmd("INFO");
        command.arg(section);
        let value: Value = self
            .deadline(command.query_async(&mut connection))
            .await
            .map_err(why)?;
        let nodes = match value {
            // A cluster answers each master's text, under its address.
            Value::Map(pairs) => pairs
                .into_iter()
                .map(|(address, text)| {
                    let address = text_of(address)?;
                    let text = text_of(text).map_err(|error| format!("{address}: {error}"))?;
                    Ok(Node::read(Some(address), text))
                })
                .collect::<Result<Vec<_>, String>>()?,
            text => vec![Node::read(None, text_of(text)?)],
        };
        Ok(nodes)
    }

    /// The value of one setting, `CONFIG GET name`.
    async fn config_get(&self, name: &str) -> Result<String, String> {
        let mut connection = self.connection.clone();
        let mut command = redis::cmd("CONFIG");
        command.arg("GET").arg(name);
        let mut values: HashMap<String, String> = self
            .deadline(command.query_async(&mut connection))
            .await
            .map_err(why)?;
        values
            .remove(name)
            .ok_or_else(|| format!("Redis does not know the setting `{name}`"))
    }
}

/// One node's `INFO` fields.
struct Node {
    /// Its address, on a cluster.
    address: Option<String>,
    fields: HashMap<String, String>,
}

impl Node {
    fn read(address: Option<String>, text: String) -> Node {
        let fields = text
            .lines()
            .filter_map(|line| line.trim_end().split_once(':'))
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
        Node { address, fields }
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// `" on ADDRESS, ADDRESS"` for the nodes of a cluster; nothing for the one
/// Redis.
fn on_nodes(nodes: &[&Node]) -> String {
    let addresses: Vec<&str> = nodes
        .iter()
        .filter_map(|node| node.address.as_deref())
        .collect();
    match addresses.is_empty() {
        true => String::new(),
        false => format!(" on {}", addresses.join(", ")),
    }
}

/// The text of a Redis answer, whichever protocol it came in; the error a
/// node answered instead.
fn text_of(value: Value) -> Result<String, String> {
    match value {
        Value::BulkString(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Value::SimpleString(text) | Value::VerbatimString { text, .. } => Ok(text),
        Value::ServerError(error) => Err(format!("Redis: {error}")),
        other => Err(format!("Redis answered {other:?}, not text")),
    }
}

/// What went wrong, without the store's preambles.
fn why(error: StoreError) -> String {
    let why = match error {
        StoreError::Unavailable(why) => why,
        other => other.to_string(),
    };
    let why = why.strip_prefix("Redis: ").unwrap_or(&why);
    why.trim_end().to_owned()
}
