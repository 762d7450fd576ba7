//! The tools the suite's tasks scenarios call: a plain one, and tools
//! that may (`task`) or must (`task = "required"`) answer as tasks. The
//! fixture makes a task of every such call still pending at its first
//! poll (`with_task_after(Duration::ZERO)`).

use std::time::Duration;

use mcp_light::context::Elicitation;
use mcp_light::prelude::*;

/// Greets `name`; never a task.
#[mcp_tool]
fn greet(name: String) -> Content {
    Content::text(format!("Hello, {name}!"))
}

/// Works for `seconds` seconds, then says so; a task when it waits.
#[mcp_tool(task)]
async fn slow_compute(seconds: u64, #[serde(default)] label: Option<String>) -> Content {
    if seconds > 0 {
        tokio::time::sleep(Duration::from_secs(seconds)).await;
    }
    let label = label.as_deref().unwrap_or("work");
    Content::text(format!("computed {label} in {seconds} s"))
}

/// Fails as a tool after about a second; runs only as a task.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<Content, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as it always does"))
}

/// Panics after a moment: the task fails with a protocol error.
#[mcp_tool(task)]
async fn protocol_error_job() -> Content {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job hit a bug");
}

/// The user's confirmation.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Looks `filename` up, then asks the user to confirm deleting it: the
/// lookup makes the call a task, the question parks it.
#[mcp_tool(task)]
async fn confirm_delete(ctx: &Context, filename: String) -> Result<Content, ToolError> {
    // Standing in for the file's lookup.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let answer = ctx
        .ask("confirm")
        .elicit::<Confirm>(format!("Delete {filename}?"))
        .await?;
    Ok(Content::text(match answer {
        Elicitation::Accept(Confirm { confirm: true }) => format!("deleted {filename}"),
        _ => format!("kept {filename}"),
    }))
}

/// A name and a confirmation.
#[derive(Debug, Deserialize, JsonSchema)]
struct Named {
    name: String,
    confirm: bool,
}

/// Asks two questions at once, after a moment: both wait in the task.
#[mcp_tool(task)]
async fn multi_input(ctx: &Context) -> Result<Content, ToolError> {
    tokio::time::sleep(Duration::from_millis(10)).await;
    let (first, second) = tokio::join!(
        ctx.ask("first").elicit::<Named>("First name?"),
        ctx.ask("second").elicit::<Named>("Second name?"),
    );
    let name = |answer: Elicitation<Named>| match answer {
        Elicitation::Accept(named) => format!("{} ({})", named.name, named.confirm),
        _ => "nobody".to_owned(),
    };
    Ok(Content::text(format!(
        "got {} and {}",
        name(first?),
        name(second?)
    )))
}

/// The user's name.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserName {
    name: String,
}

/// Asks for the user's name first (an input-required round), then works
/// on as a task and greets them; runs only as a task.
#[mcp_tool(task = "required")]
async fn test_tool_with_task(ctx: &Context) -> Result<Content, ToolError> {
    let name = match ctx
        .ask("user_name")
        .elicit::<UserName>("What is your name?")
        .await?
    {
        Elicitation::Accept(UserName { name }) => name,
        _ => "stranger".to_owned(),
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(Content::text(format!("Hello, {name}, from a task")))
}
