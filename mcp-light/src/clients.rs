//! What each MCP client keeps of a tool's answer, and the table a server
//! sizes its answers by.
//!
//! No client tells a server how much of a result it hands its model: there
//! is no capability and no `_meta` field for it. Each one names itself,
//! though, in `clientInfo` (at `initialize` on protocol 2025-11-25, in each
//! request's `_meta` on 2026-07-28), and what each does with a large
//! result is in its own source. [`KNOWN_CLIENTS`] holds those facts, each
//! beside where it was read; a client the table does not know is answered
//! as if it kept [`defaults::UNKNOWN_CLIENT_KEEPS`](crate::defaults::UNKNOWN_CLIENT_KEEPS)
//! bytes, no more than the smallest cut in the table.
//!
//! Every answer mcp-light builds fits what the calling client keeps: a
//! heavy read answers whole only within it, a page holds as many items as
//! fit, a summary is trimmed to it, and a `full` or `verify` that would not
//! fit answers what does and names the call that gets the rest. The
//! [contract](crate::docs::contract#answers-that-fit-the-client) has the
//! whole of it.
//!
//! A server adds a client, or changes what one keeps, with
//! [`ClientTable::with_client`] and hands the table to
//! [`ServerBuilder::with_clients`](crate::ServerBuilder::with_clients):
//!
//! ```
//! use mcp_light::Server;
//! use mcp_light::clients::ClientTable;
//!
//! let clients = ClientTable::new()
//!     // An in-house agent that hands its model 6,000 bytes of a result.
//!     .with_client("acme-agent", 6_000)?
//!     // Clients nobody named: as little as the smallest known cut.
//!     .with_unknown_client(8_000)?;
//! assert_eq!(clients.keeps(Some("acme-agent")), 6_000);
//! assert_eq!(clients.keeps(Some("codex-mcp-client")), 10_000);
//! assert_eq!(clients.keeps(Some("claude-code")), 40_000);
//! assert_eq!(clients.keeps(None), 8_000);
//! let server = Server::from_registry().with_clients(clients).build()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::config::ConfigError;

/// A client mcp-light knows by the name it gives itself, and how much of a
/// tool's answer it hands its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KnownClient {
    /// `clientInfo.name`, as the client sends it.
    pub name: &'static str,
    /// The most bytes of an answer it hands its model whole: of the
    /// serialized `structuredContent` where the client reads that, else of
    /// the text. A larger answer is cut, refused or set aside by the
    /// client.
    pub keeps: usize,
    /// What the client does past `keeps`, and where that was read.
    pub source: &'static str,
}

/// The clients mcp-light knows, each with its source.
pub const KNOWN_CLIENTS: &[KnownClient] = &[
    KnownClient {
        name: "codex-mcp-client",
        keeps: 10_000,
        source: "OpenAI Codex hands its model the compact JSON of structuredContent, else the \
                 text items (codex-rs/protocol/src/models.rs, From<&CallToolResult>), cut in the \
                 middle past each model's truncation_policy plus a fifth: 10,000 tokens at \
                 4 bytes a token for its bundled models (codex-rs/models-manager/models.json), \
                 10,000 bytes for any other (model_info.rs, model_info_from_slug); 10 KiB or \
                 256 lines in earlier releases (openai/codex issues 6544 and 7906). The \
                 smallest, 10,000 bytes.",
    },
    KnownClient {
        name: "claude-code",
        keeps: 40_000,
        source: "Claude Code hands its model JSON.stringify(structuredContent), else the text \
                 blocks; sets a result over 50,000 characters aside in a file (up to 500,000 \
                 with the tool's _meta[\"anthropic/maxResultSizeChars\"]) and one over \
                 MAX_MCP_OUTPUT_TOKENS (25,000) too, and warns above 10,000 tokens counted as \
                 characters / 4 (its MCP documentation, 'MCP output limits and warnings'; \
                 anthropics/claude-code issue 42869; its 2.1.197 bundle). 40,000 bytes stays \
                 under all three.",
    },
    KnownClient {
        name: "gemini-cli-mcp-client",
        keeps: 39_000,
        source: "Gemini CLI reads the text content (not structuredContent), wraps it in 41 \
                 characters of <untrusted_context>, and past 40,000 characters keeps the first \
                 20 % and the last 80 % and saves the whole to a file \
                 (packages/core/src/config/config.ts, DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD; \
                 packages/core/src/utils/fileUtils.ts, formatTruncatedToolOutput); less when \
                 its context is nearly full.",
    },
    KnownClient {
        name: "github-copilot-developer",
        keeps: 10_000,
        source: "GitHub Copilot CLI cut a result's text at 10 KiB before its 30 KB \
                 save-to-file step (github/copilot-cli issue 1732); its SDK now sets results \
                 over 51,200 bytes aside in a file (@github/copilot-sdk, LargeToolOutputConfig) \
                 and cuts smaller ones by tokens (github/copilot-sdk issue 1000). The smallest, \
                 10,000 bytes.",
    },
    KnownClient {
        name: "Visual Studio Code",
        keeps: 10_000,
        source: "VS Code's Copilot Chat hands its model JSON.stringify(structuredContent) \
                 (src/vs/workbench/contrib/mcp/common/mcpLanguageModelToolContribution.ts) and \
                 cuts a text part past half the model's prompt tokens, keeping its first 40 % \
                 and last 60 % (vscode-copilot-chat, agentPrompt.tsx, MAX_TOOL_RESPONSE_PCT); \
                 resources to 500 lines with a link its tools cannot open (microsoft/vscode \
                 issues 311068 and 329179). No fixed size: the default.",
    },
    KnownClient {
        name: "Visual Studio Code - Insiders",
        keeps: 10_000,
        source: "VS Code Insiders names itself by its productService.nameLong and reads results \
                 as VS Code does.",
    },
];

/// The least a client may be said to keep: less holds no probe and no
/// page of anything.
pub const MIN_KEEPS: usize = 2_048;

/// What each client keeps: [`KNOWN_CLIENTS`], the server's own entries
/// (which win over a known one of the same name), and what a client no
/// entry names keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientTable {
    /// The server's own entries, by name; later ones win.
    own: Vec<(String, usize)>,
    /// What a client no entry names keeps.
    unknown: usize,
}

impl Default for ClientTable {
    fn default() -> Self {
        ClientTable::new()
    }
}

impl ClientTable {
    /// The known clients, and the default for the rest
    /// ([`defaults::UNKNOWN_CLIENT_KEEPS`](crate::defaults::UNKNOWN_CLIENT_KEEPS)).
    pub const fn new() -> ClientTable {
        ClientTable {
            own: Vec::new(),
            unknown: crate::defaults::UNKNOWN_CLIENT_KEEPS,
        }
    }

    /// Says that the client calling itself `name` keeps `keeps` bytes of
    /// an answer: a client of the server's own, or a known one whose cut
    /// the server knows better.
    ///
    /// Fails when `keeps` is under [`MIN_KEEPS`].
    pub fn with_client(
        mut self,
        name: impl Into<String>,
        keeps: usize,
    ) -> Result<ClientTable, ConfigError> {
        check_keeps("ClientTable::client", keeps)?;
        let name = name.into();
        self.own.retain(|(own, _)| *own != name);
        self.own.push((name, keeps));
        Ok(self)
    }

    /// Says what a client keeps that no entry names (and a call that comes
    /// from no client, such as [`Server::call`](crate::Server::call)).
    ///
    /// Fails when `keeps` is under [`MIN_KEEPS`].
    pub fn with_unknown_client(mut self, keeps: usize) -> Result<ClientTable, ConfigError> {
        check_keeps("ClientTable::unknown_client", keeps)?;
        self.unknown = keeps;
        Ok(self)
    }

    /// What the client named `name` keeps; `None` is a client that named
    /// nothing.
    pub fn keeps(&self, name: Option<&str>) -> usize {
        let Some(name) = name else {
            return self.unknown;
        };
        if let Some((_, keeps)) = self.own.iter().find(|(own, _)| own == name) {
            return *keeps;
        }
        KNOWN_CLIENTS
            .iter()
            .find(|known| known.name == name)
            .map_or(self.unknown, |known| known.keeps)
    }
}

fn check_keeps(setting: &'static str, keeps: usize) -> Result<(), ConfigError> {
    if keeps < MIN_KEEPS {
        return Err(ConfigError::OutOfRange {
            setting,
            value: keeps as u64,
            min: MIN_KEEPS as u64,
            max: None,
            default: Some(crate::defaults::UNKNOWN_CLIENT_KEEPS as u64),
            bytes: true,
            why: "a client that keeps less holds no probe and no page",
        });
    }
    Ok(())
}

/// One entry of a [`ClientTable`] as a command line takes it:
/// `NAME=BYTES`, the name the client gives itself (its `clientInfo`) and
/// the bytes of an answer it keeps, at least [`MIN_KEEPS`].
///
/// ```
/// use mcp_light::clients::ClientEntry;
///
/// let entry: ClientEntry = "acme-agent=6000".parse()?;
/// assert_eq!((entry.name.as_str(), entry.keeps), ("acme-agent", 6000));
/// let refused = "acme-agent=lots".parse::<ClientEntry>().unwrap_err();
/// assert!(refused.to_string().contains("not a number of bytes"));
/// # Ok::<(), mcp_light::clients::ClientEntryError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientEntry {
    /// The name the client gives itself.
    pub name: String,
    /// The bytes of an answer it keeps.
    pub keeps: usize,
}

/// Why a `NAME=BYTES` entry, or a number of bytes a client keeps, was
/// refused: each says what to send instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientEntryError {
    /// No `=`, or nothing before it.
    #[error(
        "expected NAME=BYTES, the client's clientInfo name and the bytes of an answer it \
         keeps, {ENTRY_EXAMPLE}"
    )]
    NoName,
    /// BYTES is not a whole number.
    #[error(
        "`{0}` is not a number of bytes; send a whole number of at least {MIN_KEEPS}, such as \
         10000 (NAME=BYTES {ENTRY_EXAMPLE})"
    )]
    NotBytes(String),
    /// BYTES is under [`MIN_KEEPS`].
    #[error(
        "{0} bytes holds no probe and no page; send at least {MIN_KEEPS}, such as 10000 \
         (NAME=BYTES {ENTRY_EXAMPLE})"
    )]
    TooFew(usize),
}

/// What an entry's refusal shows as an example.
const ENTRY_EXAMPLE: &str = "such as acme-agent=6000 or claude-code=40000";

impl std::str::FromStr for ClientEntry {
    type Err = ClientEntryError;

    fn from_str(value: &str) -> Result<ClientEntry, ClientEntryError> {
        let (name, bytes) = value
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or(ClientEntryError::NoName)?;
        Ok(ClientEntry {
            name: name.to_owned(),
            keeps: parse_keeps(bytes)?,
        })
    }
}

/// Reads the bytes of an answer a client keeps, as a command line takes
/// them: a whole number of at least [`MIN_KEEPS`].
///
/// # Errors
///
/// When `value` is not a whole number, or is under [`MIN_KEEPS`].
pub fn parse_keeps(value: &str) -> Result<usize, ClientEntryError> {
    let keeps = value
        .parse::<usize>()
        .map_err(|_| ClientEntryError::NotBytes(value.to_owned()))?;
    if keeps < MIN_KEEPS {
        return Err(ClientEntryError::TooFew(keeps));
    }
    Ok(keeps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_no_larger_than_the_smallest_known_cut() {
        let smallest = KNOWN_CLIENTS.iter().map(|known| known.keeps).min();
        assert!(Some(crate::defaults::UNKNOWN_CLIENT_KEEPS) <= smallest);
    }

    #[test]
    fn the_servers_own_entry_wins_over_a_known_one() {
        let table = ClientTable::new()
            .with_client("claude-code", 40_000)
            .unwrap()
            .with_client("claude-code", 30_000)
            .unwrap();
        assert_eq!(table.keeps(Some("claude-code")), 30_000);
        assert_eq!(table.keeps(Some("codex-mcp-client")), 10_000);
        assert_eq!(table.keeps(Some("someone-else")), 10_000);
    }

    #[test]
    fn a_client_that_keeps_too_little_is_refused_naming_the_least() {
        let error = ClientTable::new().with_client("tiny", 100).unwrap_err();
        assert!(error.to_string().contains("at least 2 KiB"), "{error}");
    }
}
