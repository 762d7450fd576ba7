//! MCP over this process's stdin and stdout.

use crate::{Caller, Server};

use super::ServeError;

impl Server {
    /// Serves MCP over this process's stdin and stdout until the client
    /// closes them. The caller is the client process ([`Caller::Process`]).
    ///
    /// Logs must go to stderr: stdout is the protocol channel. Fails before
    /// serving when a tool takes host state that was never registered.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        use rmcp::ServiceExt;

        self.check_state()?;
        let running = self
            .into_handler(Caller::Process)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        Ok(())
    }
}
