//! Serving a [`Server`] over MCP with rmcp: stdio and Streamable HTTP (C23).
//! STUB: signatures final, bodies being written.

use std::future::Future;

use tokio::net::TcpListener;

use crate::Server;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The transport failed.
    #[error("serving MCP failed: {0}")]
    Transport(String),
    /// Reading or writing the socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Server {
    /// Serves MCP over this process's stdin and stdout until the client
    /// closes them.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        todo!()
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until
    /// `shutdown` completes.
    pub async fn serve_http(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let _ = (listener, shutdown);
        todo!()
    }
}
