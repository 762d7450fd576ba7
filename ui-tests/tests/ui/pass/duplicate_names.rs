//! Two functions registering one tool name: the registry refuses to start
//! and names both functions. And a struct taken whole that declares a
//! field mcp-light adds, which only the registry can see.

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

/// What a write is sent, with a field of mcp-light's own name.
#[derive(Deserialize, JsonSchema)]
pub struct Checked {
    pub id: u32,
    pub verify: bool,
}

#[derive(Serialize, LightKey)]
pub struct Ack {
    pub id: u32,
}

pub struct Desk;

#[mcp_tools]
impl Desk {
    #[mcp_light(update)]
    fn desk_check(&self, Parameters(Checked { id, .. }): Parameters<Checked>) -> Ack {
        Ack { id }
    }
}

fn main() {
    let taken = mcp_light::catalog::Registry::from_tools(tools![Desk::desk_check]).unwrap_err();
    assert!(
        matches!(
            taken,
            mcp_light::BuildError::AddedFieldTaken {
                field: "verify",
                ..
            }
        ),
        "{taken}"
    );
    assert_eq!(
        taken.to_string(),
        "the tool `desk_check` (`duplicate_names::Desk::desk_check`) takes an argument `verify`, \
         which mcp-light adds to the schema of every write: keep the tool a `#[mcp_tool]`, which \
         publishes its arguments as they are"
    );

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
