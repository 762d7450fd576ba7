//! The fleet server on stdin and stdout, served by rmcp.

use fleet_rmcp::Fleet;
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Fleet::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
