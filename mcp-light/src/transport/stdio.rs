//! MCP over this process's stdin and stdout, or any pair of byte streams
//! framed the same way: one JSON-RPC message per line.
//!
//! The lines are read here rather than by rmcp's codec, which drops a line
//! it cannot parse without a word, leaving a client waiting on that
//! request's id for ever, and reads a line of any length into memory. Each
//! line is bounded, and one that is too long or no well-formed message is
//! answered with a JSON-RPC error carrying its id (see [`super::jsonrpc`]).
//!
//! The end of the input stops the server gracefully: the transport keeps
//! the requests it read until their answers are written, and reports the
//! end to rmcp only once every one is answered, or the drain timeout
//! passed. (rmcp itself waits 5 s for them, whatever they are doing.)

use std::collections::HashSet;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify, OwnedMutexGuard};
use tokio::time::Instant;

use super::jsonrpc::{self, MessageRefusal};
use super::{ServeError, Serving};
use crate::context::Caller;
use crate::error::config::{ConfigError, Unit};
use crate::server::Server;

pub(crate) use crate::defaults::MAX_LINE_BYTES as DEFAULT_MAX_LINE_BYTES;

/// How [`Server::serve_stdio_with`] and [`Server::serve_lines`] read.
///
/// ```
/// let options = mcp_light::transport::StdioOptions::new().with_max_line_bytes(1 << 20)?;
/// assert_eq!(options.max_line_bytes(), 1 << 20);
/// # Ok::<(), mcp_light::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioOptions {
    max_line_bytes: usize,
    drain_timeout: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            drain_timeout: crate::defaults::DRAIN_TIMEOUT,
        }
    }
}

impl StdioOptions {
    /// The defaults: lines of up to [`MAX_LINE_BYTES`](crate::defaults::MAX_LINE_BYTES).
    pub fn new() -> StdioOptions {
        StdioOptions::default()
    }

    /// Reads lines (messages) of at most `bytes`. A longer one is skipped
    /// to its end without being kept, and answered with a `-32600` error
    /// carrying its id when its first `bytes` show one.
    ///
    /// Fails when `bytes` is 0: every message would be refused.
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Result<StdioOptions, ConfigError> {
        if bytes == 0 {
            return Err(ConfigError::zero(
                "StdioOptions::max_line_bytes",
                Unit::Bytes,
                DEFAULT_MAX_LINE_BYTES as u64,
                "with 0 every message is refused",
            ));
        }
        self.max_line_bytes = bytes;
        Ok(self)
    }

    /// The longest line read.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// When the input ends (the client closed the server's stdin), waits
    /// at most `timeout` for the requests already read to be answered
    /// before the server stops; their answers are written. 30 s by
    /// default.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let options = mcp_light::transport::StdioOptions::new().with_drain_timeout(Duration::from_secs(5));
    /// assert_eq!(options.drain_timeout(), Duration::from_secs(5));
    /// ```
    pub fn with_drain_timeout(mut self, timeout: Duration) -> StdioOptions {
        self.drain_timeout = timeout;
        self
    }

    /// How long the end of the input waits for the requests in flight.
    pub fn drain_timeout(&self) -> Duration {
        self.drain_timeout
    }
}

impl Server {
    /// Serves MCP over this process's stdin and stdout until the client
    /// closes them, with the default [`StdioOptions`]. The caller is the
    /// client process ([`Caller::Process`]). Once stdin ends, the requests
    /// already read are answered (within
    /// [`StdioOptions::with_drain_timeout`], 30 s by default) before this
    /// returns.
    ///
    /// Logs must go to stderr: stdout is the protocol channel. Fails before
    /// serving when a tool takes host state that was never registered. The
    /// [quick start](crate#quick-start) is a whole program serving stdio.
    pub fn serve_stdio(self) -> impl Future<Output = Result<(), ServeError>> + Send + 'static {
        self.serve_stdio_with(StdioOptions::new())
    }

    /// [`Server::serve_stdio`], reading as `options` say.
    pub fn serve_stdio_with(
        self,
        options: StdioOptions,
    ) -> impl Future<Output = Result<(), ServeError>> + Send + 'static {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout(), options)
    }

    /// Serves MCP over `reader` and `writer`, one JSON-RPC message per line
    /// as on stdio, until `reader` ends: a child process's pipes, a Unix
    /// socket, an in-memory pipe in a test. The caller is
    /// [`Caller::Process`].
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (client, server_side) = tokio::io::duplex(4096);
    /// let (reader, writer) = tokio::io::split(server_side);
    /// let server = mcp_light::Server::from_registry().build()?;
    /// tokio::spawn(server.serve_lines(reader, writer, mcp_light::transport::StdioOptions::new()));
    ///
    /// let (from_server, mut to_server) = tokio::io::split(client);
    /// // Not JSON: answered with a parse error rather than dropped.
    /// to_server.write_all(b"{oops\n").await.unwrap();
    /// let mut line = String::new();
    /// BufReader::new(from_server).read_line(&mut line).await.unwrap();
    /// assert!(line.contains("-32700"), "{line}");
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub fn serve_lines<R, W>(
        self,
        reader: R,
        writer: W,
        options: StdioOptions,
    ) -> impl Future<Output = Result<(), ServeError>> + Send + 'static
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_boxed_lines(Box::new(reader), Box::new(writer), options)
    }

    /// [`Server::serve_lines`] over boxed streams, returning a boxed
    /// future: the serving stack is compiled once, here, and a binary that
    /// awaits it compiles none of it again (see [`Serving`]).
    fn serve_boxed_lines(
        self,
        reader: Box<dyn AsyncRead + Unpin + Send>,
        writer: Box<dyn AsyncWrite + Unpin + Send>,
        options: StdioOptions,
    ) -> Serving {
        Box::pin(self.serve_line_transport(reader, writer, options))
    }

    async fn serve_line_transport(
        self,
        reader: Box<dyn AsyncRead + Unpin + Send>,
        writer: Box<dyn AsyncWrite + Unpin + Send>,
        options: StdioOptions,
    ) -> Result<(), ServeError> {
        use rmcp::ServiceExt;

        let transport = LineTransport {
            reader: BufReader::new(reader),
            writer: Arc::new(Mutex::new(writer)),
            max_line_bytes: options.max_line_bytes.max(1),
            line: Vec::new(),
            length: 0,
            unanswered: Arc::default(),
            drain_timeout: options.drain_timeout,
            drain_deadline: None,
        };
        let running = self
            .into_handler(Caller::Process)
            .serve(transport)
            .await
            .map_err(|e| ServeError::Initialize(Box::new(e)))?;
        running.waiting().await.map_err(ServeError::Session)?;
        Ok(())
    }
}

/// One JSON-RPC message per line over a reader and a writer.
struct LineTransport<R, W> {
    reader: BufReader<R>,
    /// Shared with every send in flight: rmcp sends concurrently.
    writer: Arc<Mutex<W>>,
    max_line_bytes: usize,
    /// The line being read, at most `max_line_bytes` of it. It outlives a
    /// read that was dropped half-way (rmcp selects between receiving and
    /// sending), so the next read goes on where that one stopped.
    line: Vec<u8>,
    /// How long the line being read is so far, skipped bytes included.
    length: usize,
    /// The requests read and not answered yet.
    unanswered: Arc<Unanswered>,
    /// How long the end of the input waits for them.
    drain_timeout: Duration,
    /// Set when the input ended: until when it waits.
    drain_deadline: Option<Instant>,
}

/// The requests a client sent that the server has not answered yet.
#[derive(Debug, Default)]
struct Unanswered {
    ids: std::sync::Mutex<HashSet<RequestId>>,
    /// Woken when the last one is answered.
    none: Notify,
}

impl Unanswered {
    fn read(&self, message: &ClientJsonRpcMessage) {
        match message {
            ClientJsonRpcMessage::Request(request) => {
                self.ids().insert(request.id.clone());
            }
            // A cancelled request may never be answered.
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.answered(id);
                }
            }
            ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_) => {}
        }
    }

    fn answered(&self, id: &RequestId) {
        let mut ids = self.ids();
        if ids.remove(id) && ids.is_empty() {
            self.none.notify_waiters();
        }
    }

    /// Completes when every request read is answered.
    async fn all_answered(&self) {
        loop {
            let woken = self.none.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.ids().is_empty() {
                return;
            }
            woken.await;
        }
    }

    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The request `message` answers, if it answers one.
fn answers(message: &ServerJsonRpcMessage) -> Option<&RequestId> {
    match message {
        ServerJsonRpcMessage::Response(response) => Some(&response.id),
        ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
        ServerJsonRpcMessage::Request(_) | ServerJsonRpcMessage::Notification(_) => None,
    }
}

/// What reading one line came to.
enum Line {
    /// The input ended.
    End,
    /// A whole line, without its newline.
    Whole(Vec<u8>),
    /// The line was longer than the limit: its first bytes, and how long
    /// it was.
    TooLong(Vec<u8>, usize),
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Reads the next line, keeping at most the limit and skipping the
    /// rest. Cancel-safe: the part of a line read before the future was
    /// dropped stays in `self.line`.
    async fn read_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(match self.length {
                    0 => Line::End,
                    _ => self.take_line(),
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            let room = self.max_line_bytes.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            self.length += chunk.len();
            let used = chunk.len() + usize::from(newline.is_some());
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(self.take_line());
            }
        }
    }

    /// Waits, once the input ended, for the requests read to be answered,
    /// until the drain deadline. Cancel-safe: rmcp drops this future to
    /// send an answer and calls `receive` again, which waits on to the
    /// same deadline.
    async fn drain(&mut self) {
        let deadline = *self
            .drain_deadline
            .get_or_insert_with(|| Instant::now() + self.drain_timeout);
        let unanswered = Arc::clone(&self.unanswered);
        if tokio::time::timeout_at(deadline, unanswered.all_answered())
            .await
            .is_err()
        {
            tracing::warn!(
                unanswered = unanswered.ids().len(),
                "the input ended and the drain deadline passed; stopping with requests unanswered"
            );
        }
    }

    /// The line read so far, leaving room for the next one.
    fn take_line(&mut self) -> Line {
        let length = std::mem::take(&mut self.length);
        let mut line = std::mem::take(&mut self.line);
        if length > self.max_line_bytes {
            return Line::TooLong(line, length);
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Line::Whole(line)
    }
}

/// Writes `message` as one line.
async fn send<W: AsyncWrite + Unpin>(
    writer: Arc<Mutex<W>>,
    message: ServerJsonRpcMessage,
) -> io::Result<()> {
    write_line(writer.lock_owned().await, message).await
}

/// Writes `message` as one line on the `writer` it holds.
async fn write_line<W: AsyncWrite + Unpin>(
    mut writer: OwnedMutexGuard<W>,
    message: ServerJsonRpcMessage,
) -> io::Result<()> {
    let mut line = serde_json::to_vec(&message)?;
    line.push(b'\n');
    writer.write_all(&line).await?;
    writer.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let answered = answers(&item).cloned();
        let unanswered = Arc::clone(&self.unanswered);
        let writer = Arc::clone(&self.writer);
        async move {
            let sent = send(writer, item).await;
            // Written or failed: either way nothing more will answer it.
            if let Some(id) = answered {
                unanswered.answered(&id);
            }
            sent
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let refusal = match self.read_line().await {
                Ok(Line::End) => {
                    self.drain().await;
                    return None;
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot read from the client; ending the session");
                    return None;
                }
                Ok(Line::TooLong(prefix, length)) => MessageRefusal::invalid_request(
                    id_in_prefix(&prefix),
                    format!(
                        "the message is {length} bytes long, and this server reads messages of \
                         at most {} bytes",
                        self.max_line_bytes
                    ),
                ),
                Ok(Line::Whole(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Line::Whole(line)) => match jsonrpc::parse(&line) {
                    Ok(message) => {
                        self.unanswered.read(&message);
                        return Some(message);
                    }
                    Err(refusal) => *refusal,
                },
            };
            // Written on a task of its own, once the writer is ours: rmcp
            // drops this future when it has an answer to send, and a line
            // cut there (a full pipe) would run into that answer. A
            // failure to write ends nothing here: the next read or send
            // meets it.
            let writer = Arc::clone(&self.writer).lock_owned().await;
            tokio::spawn(async move {
                if let Err(error) = write_line(writer, refusal.into_message()).await {
                    tracing::warn!(%error, "cannot write a JSON-RPC error to the client");
                }
            });
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.writer.lock().await.shutdown().await
    }
}

/// The `id` of a JSON-RPC object of which only `prefix` was read, if it
/// comes before the cut (clients write it before `params`).
fn id_in_prefix(prefix: &[u8]) -> Option<RequestId> {
    let mut rest = skip_space(prefix).strip_prefix(b"{")?;
    loop {
        rest = skip_space(rest);
        let (key, after) = next_value::<String>(rest)?;
        rest = skip_space(after).strip_prefix(b":")?;
        rest = skip_space(rest);
        if key == "id" {
            return match rest.first()? {
                b'"' => next_value::<RequestId>(rest).map(|(id, _)| id),
                _ => {
                    let end = rest
                        .iter()
                        .position(|b| !(b.is_ascii_digit() || *b == b'-'))?;
                    std::str::from_utf8(&rest[..end])
                        .ok()?
                        .parse()
                        .ok()
                        .map(RequestId::Number)
                }
            };
        }
        rest = match rest.first()? {
            b'"' | b'{' | b'[' => next_value::<IgnoredAny>(rest)?.1,
            _ => &rest[rest.iter().position(|b| matches!(b, b',' | b'}'))?..],
        };
        rest = skip_space(rest).strip_prefix(b",")?;
    }
}

/// The JSON value (a string, an object or an array) at the start of
/// `bytes`, and what follows it.
fn next_value<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<(T, &[u8])> {
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, &bytes[values.byte_offset()..]))
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `stdio` fuzz target: after the handshake, the same
    /// `initialize` request five times (id 4294967295), then a
    /// `tools/call` whose `arguments` were a string of 8,800 characters.
    /// The refusal (which quotes the string) was cut where the pipe was
    /// full, and an answer to an `initialize` ran into it on one line.
    #[tokio::test]
    async fn a_refusal_is_written_whole_when_the_pipe_is_full() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let initialize = |id: u64, version: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"fuzz","version":"1"}}}}}}"#
            )
        };
        let mut lines = vec![
            initialize(0, "2025-06-18"),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        ];
        lines.extend((0..5).map(|_| initialize(4_294_967_295, "2025-03-26")));
        let long = "\u{8ffa9}".repeat(8_800);
        lines.push(format!(
            r#"{{"jsonrpc":"2.0","id":2846468521,"method":"tools/call","params":{{"name":"","arguments":"{long}"}}}}"#
        ));
        let input = lines.join("\n") + "\n";

        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (reader, writer) = tokio::io::split(server_side);
        let server = Server::from_registry().build().unwrap();
        let serving = tokio::spawn(server.serve_lines(reader, writer, StdioOptions::new()));
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let send = async move {
            to_server.write_all(input.as_bytes()).await.unwrap();
            to_server.shutdown().await.unwrap();
        };
        let mut written = Vec::new();
        let (_, read) = tokio::join!(send, from_server.read_to_end(&mut written));
        read.unwrap();
        serving.await.unwrap().unwrap();
        for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            if let Err(error) = serde_json::from_slice::<serde_json::Value>(line) {
                let end =
                    String::from_utf8_lossy(&line[line.len().saturating_sub(300)..]).into_owned();
                panic!("a line that is no JSON ({error}), ending {end}");
            }
        }
    }

    #[test]
    fn the_id_of_a_cut_message_is_found_before_the_cut() {
        let cut = br#"{"jsonrpc": "2.0", "meta": {"a": [1, "}"]}, "n": 5, "id": 42, "method": "tools/call", "params": {"name": "x", "argu"#;
        assert_eq!(id_in_prefix(cut), Some(RequestId::Number(42)));
        let cut = br#"{"id":"abc","params":{"#;
        assert_eq!(id_in_prefix(cut), Some(RequestId::String("abc".into())));
        assert_eq!(id_in_prefix(br#"{"jsonrpc":"2.0","params":{"x":"#), None);
        assert_eq!(id_in_prefix(b"not json at all"), None);
    }

    /// rmcp gives a request up 5 s after the input ends; the transport
    /// reports the end only once every request it read is answered.
    #[tokio::test]
    async fn the_end_of_the_input_waits_for_the_requests_read_to_be_answered() {
        use rmcp::model::{EmptyResult, ServerResult};

        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n".to_vec();
        let mut transport = LineTransport {
            reader: BufReader::new(std::io::Cursor::new(input)),
            writer: Arc::new(Mutex::new(tokio::io::sink())),
            max_line_bytes: 1024,
            line: Vec::new(),
            length: 0,
            unanswered: Arc::default(),
            drain_timeout: crate::defaults::DRAIN_TIMEOUT,
            drain_deadline: None,
        };
        let request = transport.receive().await.expect("the request");
        let ClientJsonRpcMessage::Request(request) = request else {
            panic!("a request was read");
        };
        let pending =
            tokio::time::timeout(std::time::Duration::from_millis(50), transport.receive()).await;
        assert!(
            pending.is_err(),
            "the end was reported with a request unanswered"
        );
        let answer =
            ServerJsonRpcMessage::response(ServerResult::EmptyResult(EmptyResult {}), request.id);
        Transport::send(&mut transport, answer).await.unwrap();
        assert!(transport.receive().await.is_none(), "the end once answered");
    }

    #[tokio::test]
    async fn the_end_of_the_input_stops_waiting_at_the_drain_deadline() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n".to_vec();
        let mut transport = LineTransport {
            reader: BufReader::new(std::io::Cursor::new(input)),
            writer: Arc::new(Mutex::new(tokio::io::sink())),
            max_line_bytes: 1024,
            line: Vec::new(),
            length: 0,
            unanswered: Arc::default(),
            drain_timeout: std::time::Duration::from_millis(10),
            drain_deadline: None,
        };
        assert!(transport.receive().await.is_some());
        assert!(transport.receive().await.is_none(), "the deadline ends it");
    }

    /// rmcp drops a pending `receive` when it has something to send (a
    /// progress notification during a call, say): the part of the line read
    /// before must not be lost, or the rest is read as a line of its own.
    #[tokio::test]
    async fn a_read_dropped_half_way_through_a_line_goes_on_where_it_stopped() {
        use tokio::io::AsyncWriteExt;

        let (mut client, server) = tokio::io::duplex(64);
        let mut transport = LineTransport {
            reader: BufReader::new(server),
            writer: Arc::new(Mutex::new(tokio::io::sink())),
            max_line_bytes: 1024,
            line: Vec::new(),
            length: 0,
            unanswered: Arc::default(),
            drain_timeout: crate::defaults::DRAIN_TIMEOUT,
            drain_deadline: None,
        };
        client.write_all(br#"{"jsonrpc":"2.0","#).await.unwrap();
        let dropped =
            tokio::time::timeout(std::time::Duration::from_millis(20), transport.read_line()).await;
        assert!(dropped.is_err(), "half a line is not a line");
        client.write_all(b"\"id\":1}\n").await.unwrap();
        match transport.read_line().await.unwrap() {
            Line::Whole(line) => assert_eq!(line, br#"{"jsonrpc":"2.0","id":1}"#),
            _ => panic!("expected the whole line"),
        }
    }
}
