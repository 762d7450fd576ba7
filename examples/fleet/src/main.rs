//! The fleet server on stdin and stdout, served by mcp-light: six tools
//! moved, `fleet_stats` still rmcp's, served beside them.

use fleet::Fleet;
use mcp_light::Server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fleet = Fleet::new();
    Server::from_registry()
        .with_implementation(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .with_state(fleet.clone())
        .with_handler(fleet)
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
