//! The command line: which server is behind the gateway, where the gateway
//! serves, and how it keeps what it keeps.

use std::net::SocketAddr;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use mcp_light::clients::{ClientEntry, ClientTable, parse_keeps};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// mcp-light's answer discipline in front of an MCP server: answers that
/// fit the client pass through, larger ones answer a probe and a
/// continuation token that pages, summarizes, filters or fetches them.
#[derive(Parser, Debug)]
#[command(version, about, after_help = EXAMPLES)]
pub(crate) struct Cli {
    /// The upstream server's command and its arguments, after `--`, as a
    /// host's configuration would launch it
    #[arg(
        last = true,
        value_name = "COMMAND",
        required_unless_present = "upstream_url",
        conflicts_with = "upstream_url"
    )]
    pub(crate) command: Vec<String>,

    /// The upstream server's Streamable HTTP endpoint, instead of a
    /// command
    ///
    /// Such as https://mcp.example.com/mcp. --upstream-header and
    /// --upstream-bearer-env say what every request to it carries.
    #[arg(long, value_name = "URL", value_parser = upstream_url, verbatim_doc_comment)]
    pub(crate) upstream_url: Option<String>,

    /// A header every request to --upstream-url carries (repeatable)
    #[arg(
        long = "upstream-header",
        value_name = "NAME: VALUE",
        value_parser = header,
        action = clap::ArgAction::Append
    )]
    pub(crate) upstream_headers: Vec<(http::HeaderName, http::HeaderValue)>,

    /// The environment variable that holds the bearer token for
    /// --upstream-url
    ///
    /// Every request carries `Authorization: Bearer <its value>`; the
    /// token stays out of the command line, where other users of the
    /// machine could read it.
    #[arg(long, value_name = "VAR", verbatim_doc_comment)]
    pub(crate) upstream_bearer_env: Option<String>,

    /// A TOML file saying per tool what to do with its answers
    ///
    /// `[tools.NAME]` with `heavy = { items = "/pointer" }` (keep a large
    /// answer, paging the list at that JSON pointer), `write = { kind =
    /// "create", id = "FIELD" }` (a lean envelope; kinds: create, update,
    /// partial_update, destroy, bulk_create, bulk_update; `items` for a
    /// bulk's list), `pass = true` (always answered untouched) or
    /// `hide = true` (neither listed nor called). A tool the file does
    /// not name is kept. `surface = "dispatcher"` with `[groups]` shows
    /// one tool that reaches all of them.
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub(crate) config: Option<std::path::PathBuf>,

    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio
    ///
    /// ADDR is an IP address and a port (0 picks one; the address served
    /// is printed on stderr). The gateway asks no credential of its
    /// callers: keep it on loopback, or behind a proxy that
    /// authenticates.
    #[arg(long, value_name = "ADDR", value_parser = socket_addr, verbatim_doc_comment)]
    pub(crate) http: Option<SocketAddr>,

    /// Where large answers are kept: `memory`, or a Redis URL
    /// [default: memory]
    ///
    /// `redis://host:6379` (the `redis` feature) lets gateways that
    /// share it redeem each other's tokens.
    #[arg(long, value_name = "STORE", value_parser = store, verbatim_doc_comment)]
    pub(crate) store: Option<Store>,

    /// How long a continuation token redeems, in seconds [default: 300]
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) token_ttl: Option<u64>,

    /// What the MCP client calling itself NAME keeps of an answer, in
    /// bytes (repeatable)
    ///
    /// An upstream answer passes through whole only within it; a page
    /// holds as many items as fit. Adds a client of your own, or
    /// overrides a known one. BYTES is at least 2048.
    #[arg(
        long,
        value_name = "NAME=BYTES",
        value_parser = client_bytes,
        action = clap::ArgAction::Append,
        verbatim_doc_comment
    )]
    pub(crate) client: Vec<(String, usize)>,

    /// What a client no --client and no known client names keeps, in
    /// bytes [default: 10000]
    #[arg(long, value_name = "BYTES", value_parser = unknown_client_bytes)]
    pub(crate) unknown_client_bytes: Option<usize>,

    /// The largest message the gateway reads from the upstream, in MiB
    /// [default: 256]
    ///
    /// One answer is one message: the whole of a large file or listing
    /// the gateway keeps behind a token. A call whose answer is longer
    /// ends with an error, and the gateway serves on.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=4096), verbatim_doc_comment)]
    pub(crate) max_answer_mib: Option<u32>,

    /// Audit this configuration and exit: the upstream reached and its
    /// tools listed, the transport, the store; exits 1 on an error
    #[arg(long)]
    pub(crate) check: bool,
}

/// Where the gateway keeps large answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Store {
    /// This process's memory.
    Memory,
    /// A Redis server, by its URL.
    Redis(String),
}

impl Cli {
    /// The command line, parsed and checked: help and version go to stdout
    /// with status 0, mistakes to stderr with status 2.
    pub(crate) fn parse_checked() -> Cli {
        let cli = Cli::parse();
        if let Err(error) = cli.check_upstream_flags() {
            error.exit();
        }
        cli
    }

    /// `--upstream-header` and `--upstream-bearer-env` go with
    /// `--upstream-url`: a command started as a child process reads no
    /// header.
    fn check_upstream_flags(&self) -> Result<(), clap::Error> {
        if self.upstream_url.is_some() {
            return Ok(());
        }
        let flag = match (self.upstream_headers.is_empty(), &self.upstream_bearer_env) {
            (false, _) => "--upstream-header",
            (true, Some(_)) => "--upstream-bearer-env",
            (true, None) => return Ok(()),
        };
        Err(Cli::command().error(
            ErrorKind::MissingRequiredArgument,
            format!(
                "{flag} is sent to the server --upstream-url names; a server started as a \
                 command reads no header: add --upstream-url URL, or leave {flag} out"
            ),
        ))
    }

    /// The upstream's Streamable HTTP configuration, with its headers and
    /// bearer, when `--upstream-url` names one.
    pub(crate) fn upstream_http(
        &self,
    ) -> Result<Option<StreamableHttpClientTransportConfig>, String> {
        let Some(url) = &self.upstream_url else {
            return Ok(None);
        };
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
            .custom_headers(self.upstream_headers.iter().cloned().collect());
        if let Some(var) = &self.upstream_bearer_env {
            let token = std::env::var(var).map_err(|_| {
                format!(
                    "--upstream-bearer-env {var}: the environment variable {var} is not set \
                     (or not UTF-8); set it to the upstream's bearer token"
                )
            })?;
            if token.trim().is_empty() {
                return Err(format!(
                    "--upstream-bearer-env {var}: the environment variable {var} is empty; set \
                     it to the upstream's bearer token"
                ));
            }
            // rmcp sends it as `Authorization: Bearer <token>`.
            config = config.auth_header(token.trim());
        }
        Ok(Some(config))
    }

    /// The largest upstream message read, in bytes.
    pub(crate) fn max_answer_bytes(&self) -> usize {
        usize::try_from(self.max_answer_mib.unwrap_or(256)).map_or(usize::MAX, |mib| mib << 20)
    }

    /// What each client keeps of an answer: the clients mcp-light knows,
    /// `--client`'s entries over them, `--unknown-client-bytes` for the
    /// rest.
    pub(crate) fn clients(&self) -> Result<ClientTable, String> {
        let mut clients = ClientTable::new();
        for (name, bytes) in &self.client {
            clients = clients
                .with_client(name, *bytes)
                .map_err(|e| format!("--client {name}={bytes}: {e}"))?;
        }
        if let Some(bytes) = self.unknown_client_bytes {
            clients = clients
                .with_unknown_client(bytes)
                .map_err(|e| format!("--unknown-client-bytes {bytes}: {e}"))?;
        }
        Ok(clients)
    }

    /// What names the upstream in messages: its URL, or its program.
    pub(crate) fn upstream_name(&self) -> &str {
        match (&self.upstream_url, self.command.first()) {
            (Some(url), _) => url,
            (None, Some(program)) => program,
            (None, None) => "the upstream",
        }
    }
}

fn upstream_url(value: &str) -> Result<String, String> {
    match value.split_once("://") {
        Some(("http" | "https", rest)) if !rest.is_empty() => Ok(value.to_owned()),
        _ => Err(
            "expected an http:// or https:// URL of the server's MCP endpoint, such as \
                  http://127.0.0.1:8080/mcp"
                .to_owned(),
        ),
    }
}

fn header(value: &str) -> Result<(http::HeaderName, http::HeaderValue), String> {
    const EXAMPLE: &str = "such as 'X-Api-Version: 2'";
    let Some((name, header_value)) = value.split_once(':') else {
        return Err(format!("expected NAME: VALUE, {EXAMPLE}"));
    };
    let name = http::HeaderName::try_from(name.trim()).map_err(|_| {
        format!(
            "`{}` is not a header name; send NAME: VALUE, {EXAMPLE}",
            name.trim()
        )
    })?;
    if name == http::header::AUTHORIZATION {
        return Err(
            "send the bearer token with --upstream-bearer-env VAR, not as a header: \
                    a command line is readable by other users of the machine"
                .to_owned(),
        );
    }
    let header_value = http::HeaderValue::try_from(header_value.trim()).map_err(|_| {
        format!("the value of {name} holds a character a header cannot carry; send visible ASCII")
    })?;
    Ok((name, header_value))
}

fn socket_addr(value: &str) -> Result<SocketAddr, String> {
    value
        .parse()
        .map_err(|_| "expected an IP address and a port, such as 127.0.0.1:8080".to_owned())
}

fn store(value: &str) -> Result<Store, String> {
    match value {
        "memory" => Ok(Store::Memory),
        url if url.starts_with("redis://") || url.starts_with("rediss://") => {
            Ok(Store::Redis(url.to_owned()))
        }
        _ => Err("expected `memory` or a Redis URL such as redis://127.0.0.1:6379".to_owned()),
    }
}

/// `--client`'s value: NAME=BYTES.
fn client_bytes(value: &str) -> Result<(String, usize), String> {
    value
        .parse::<ClientEntry>()
        .map(|entry| (entry.name, entry.keeps))
        .map_err(|e| e.to_string())
}

/// `--unknown-client-bytes`' value: at least
/// [`MIN_KEEPS`](mcp_light::clients::MIN_KEEPS).
fn unknown_client_bytes(value: &str) -> Result<usize, String> {
    parse_keeps(value).map_err(|e| e.to_string())
}

const EXAMPLES: &str = "\
Examples:
  mcp-light-gateway -- npx -y @modelcontextprotocol/server-filesystem /srv
                                     the filesystem server, on stdio
  mcp-light-gateway --upstream-url https://mcp.example.com/mcp --upstream-bearer-env MCP_TOKEN
                                     a remote server, its token from $MCP_TOKEN
  mcp-light-gateway --http 127.0.0.1:8080 -- uvx mcp-server-git
                                     served as Streamable HTTP at http://127.0.0.1:8080/mcp
  mcp-light-gateway --check -- npx -y @modelcontextprotocol/server-memory
                                     the audit of that configuration, nothing served";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let cli =
            Cli::try_parse_from(std::iter::once("mcp-light-gateway").chain(args.iter().copied()))?;
        cli.check_upstream_flags().map(|()| cli)
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_command_or_an_upstream_url_is_required_and_not_both() {
        let missing = parse(&[]).unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::MissingRequiredArgument);
        let both =
            parse(&["--upstream-url", "http://127.0.0.1:1/mcp", "--", "server"]).unwrap_err();
        assert_eq!(both.kind(), ErrorKind::ArgumentConflict);
        let command = parse(&["--", "npx", "-y", "server-memory"]).unwrap();
        assert_eq!(command.command, ["npx", "-y", "server-memory"]);
        assert_eq!(command.upstream_name(), "npx");
    }

    #[test]
    fn upstream_headers_are_parsed_and_authorization_is_refused_with_the_flag_to_use() {
        let cli = parse(&[
            "--upstream-url",
            "https://mcp.example.com/mcp",
            "--upstream-header",
            "X-Api-Version: 2",
        ])
        .unwrap();
        assert_eq!(cli.upstream_headers[0].0, "x-api-version");
        assert_eq!(cli.upstream_headers[0].1, "2");
        let config = cli.upstream_http().unwrap().unwrap();
        assert_eq!(&*config.uri, "https://mcp.example.com/mcp");
        assert_eq!(config.custom_headers.len(), 1);

        let refused = parse(&[
            "--upstream-url",
            "https://mcp.example.com/mcp",
            "--upstream-header",
            "Authorization: Bearer secret",
        ])
        .unwrap_err()
        .to_string();
        assert!(refused.contains("--upstream-bearer-env"), "{refused}");
        let no_colon = parse(&["--upstream-url", "http://h/mcp", "--upstream-header", "X-A"])
            .unwrap_err()
            .to_string();
        assert!(no_colon.contains("NAME: VALUE"), "{no_colon}");
        let without_url = parse(&["--upstream-header", "X-A: 1", "--", "server"]).unwrap_err();
        assert_eq!(without_url.kind(), ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn an_upstream_url_that_is_not_http_is_refused_with_an_example() {
        let refused = parse(&["--upstream-url", "localhost:8080"])
            .unwrap_err()
            .to_string();
        assert!(refused.contains("http://127.0.0.1:8080/mcp"), "{refused}");
    }

    #[test]
    fn the_bearer_comes_from_the_named_variable_and_a_missing_one_is_named() {
        let cli = parse(&[
            "--upstream-url",
            "http://127.0.0.1:1/mcp",
            "--upstream-bearer-env",
            "MCP_LIGHT_GATEWAY_TEST_NO_SUCH_VARIABLE",
        ])
        .unwrap();
        let error = cli.upstream_http().unwrap_err();
        assert!(
            error.contains("MCP_LIGHT_GATEWAY_TEST_NO_SUCH_VARIABLE is not set"),
            "{error}"
        );
    }

    #[test]
    fn clients_and_stores_are_checked_as_they_are_parsed() {
        let small = parse(&["--client", "tiny=100", "--", "s"])
            .unwrap_err()
            .to_string();
        assert!(small.contains("at least 2048"), "{small}");
        let cli = parse(&[
            "--client",
            "acme=6000",
            "--unknown-client-bytes",
            "8000",
            "--",
            "s",
        ])
        .unwrap();
        assert!(cli.clients().is_ok());
        let store = parse(&["--store", "postgres://x", "--", "s"])
            .unwrap_err()
            .to_string();
        assert!(store.contains("redis://127.0.0.1:6379"), "{store}");
        let redis = parse(&["--store", "redis://127.0.0.1:6379", "--", "s"]).unwrap();
        assert_eq!(
            redis.store,
            Some(Store::Redis("redis://127.0.0.1:6379".to_owned()))
        );
    }
}
