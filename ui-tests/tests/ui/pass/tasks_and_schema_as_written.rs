use mcp_light::prelude::*;

/// Audits every device: may answer as a task.
#[mcp_tool(task)]
async fn device_audit() -> usize {
    0
}

/// Imports devices: runs only as a task.
#[mcp_tool(task = "required")]
async fn device_import(names: Vec<String>) -> Vec<String> {
    names
}

/// A contact, one of two ways.
#[mcp_tool(schema = "as_written")]
#[schemars(extend("anyOf" = [{"required": ["phone"]}, {"required": ["email"]}]))]
fn contact_add(
    #[serde(default)] phone: Option<String>,
    #[serde(default)] email: Option<String>,
) -> String {
    format!("{phone:?} {email:?}")
}

fn main() {
    use mcp_light::tasks::TaskSupport;
    let [audit, import, contact] = mcp_light::tools![device_audit, device_import, contact_add];
    assert_eq!(audit.task_support(), TaskSupport::Optional);
    assert_eq!(import.task_support(), TaskSupport::Required);
    assert!(contact.schema_as_written());
    let schema = serde_json::to_value(contact.params_schema()).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["anyOf"][0]["required"][0], "phone");
}
