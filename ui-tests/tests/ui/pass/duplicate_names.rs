//! Two functions registering one tool name: the registry refuses to start
//! and names both functions.

use mcp_light::prelude::*;

mod a {
    use super::*;

    /// Ping from module a.
    #[mcp_tool(name = "ping")]
    pub fn ping_a() -> u32 {
        1
    }
}

mod b {
    use super::*;

    /// Ping from module b.
    #[mcp_tool(name = "ping")]
    pub fn ping_b() -> u32 {
        2
    }
}

fn main() {
    let error = mcp_light::catalog::Registry::collect().unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("two tools are named `ping`: "),
        "{message}"
    );
    assert!(message.contains("::a::ping_a`"), "{message}");
    assert!(message.contains("::b::ping_b`"), "{message}");
    assert!(message.contains("rename one function"), "{message}");
    assert!(Server::from_registry().build().is_err());
}
