//! The server's settings for tools that talk back: how long an ask waits
//! for the client, and the key and lifetime of sealed request states.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::RequestStateCodec;

use crate::Server;
use crate::config::ConfigError;
use crate::roundtrip::Talkback;

impl Server {
    /// Signs the `requestState` of input-required results (protocol
    /// 2026-07-28) with `key`, at least 32 bytes, instead of the key drawn
    /// at random when the process starts. Replicas behind one load balancer
    /// share a key, so a retry that lands on another replica still opens the
    /// state the first one sealed.
    ///
    /// Fails when `key` is shorter than 32 bytes; the error gives its
    /// length, never the key.
    ///
    /// ```
    /// let server = mcp_light::Server::from_registry()?
    ///     .with_request_state_key(*b"a 32-byte secret shared by all!!")?;
    /// let short = mcp_light::Server::from_registry()?.with_request_state_key(*b"short");
    /// assert_eq!(short.unwrap_err().setting(), "Server::request_state_key (its length in bytes)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_request_state_key(
        mut self,
        key: impl Into<Vec<u8>>,
    ) -> Result<Server, ConfigError> {
        let key = key.into();
        if key.len() < RequestStateCodec::MIN_KEY_LENGTH {
            return Err(ConfigError::at_least(
                "Server::request_state_key (its length in bytes)",
                key.len() as u64,
                RequestStateCodec::MIN_KEY_LENGTH as u64,
                "a shorter key is too easy to guess; draw one at random",
            ));
        }
        // A key's length is all `try_new` checks.
        let codec = RequestStateCodec::try_new(key).expect("a key long enough makes a codec");
        self.talkback = Arc::new(Talkback {
            codec,
            state_ttl: self.talkback.state_ttl,
            ask_timeout: self.talkback.ask_timeout,
        });
        Ok(self)
    }

    /// How long a client has to retry a call that answered an
    /// input-required result (protocol 2026-07-28) before its
    /// `requestState` expires; 10 minutes by default
    /// ([`DEFAULT_REQUEST_STATE_TTL`](crate::DEFAULT_REQUEST_STATE_TTL)). An expired state is refused like a
    /// forged one, and the client starts the call again.
    pub fn with_request_state_ttl(mut self, ttl: Duration) -> Server {
        self.talkback = Arc::new(Talkback {
            codec: self.talkback.codec.clone(),
            state_ttl: ttl,
            ask_timeout: self.talkback.ask_timeout,
        });
        self
    }

    /// How long a tool's request to the client — elicitation, sampling,
    /// roots — waits for the answer on protocol 2025-11-25 before the ask
    /// fails with an error naming the timeout; 5 minutes by default
    /// ([`DEFAULT_ASK_TIMEOUT`](crate::DEFAULT_ASK_TIMEOUT)), as a person may be answering.
    pub fn with_ask_timeout(mut self, timeout: Duration) -> Server {
        self.talkback = Arc::new(Talkback {
            codec: self.talkback.codec.clone(),
            state_ttl: self.talkback.state_ttl,
            ask_timeout: timeout,
        });
        self
    }
}
