//! mcp-light's documentation beyond its items: the contract every tool keeps,
//! and recipes for real programs.
//!
//! Both pages live in the repository's `docs/` directory, where they read as
//! plain Markdown; here their Rust blocks are doctests, so they cannot drift
//! from the code.

// Each page's links point where they work on GitHub; the definitions below
// come first, and the first definition of a link wins, so rustdoc sends the
// same links to this build's items instead.

pub mod contract {
    //! [`Server`]: crate::Server
    #![doc = include_str!("../docs/contract.md")]
}

pub mod recipes {
    //! [quick start]: crate#quick-start
    #![doc = include_str!("../docs/recipes.md")]
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The body of every fenced block of `page` whose info string is `lang`.
    fn blocks(page: &str, lang: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut lines = page.lines();
        while let Some(line) = lines.next() {
            if line.strip_prefix("```") == Some(lang) {
                let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
                blocks.push(body.join("\n"));
            }
        }
        blocks
    }

    #[test]
    fn every_client_configuration_of_the_recipes_is_json_naming_a_server() {
        let configs = blocks(include_str!("../docs/recipes.md"), "json");
        assert!(configs.len() >= 6, "found {} JSON blocks", configs.len());
        for config in configs {
            let value: Value = serde_json::from_str(&config)
                .unwrap_or_else(|e| panic!("not JSON ({e}):\n{config}"));
            // Claude Desktop and Claude Code say `mcpServers`, VS Code `servers`.
            let servers = value
                .get("mcpServers")
                .or_else(|| value.get("servers"))
                .and_then(Value::as_object)
                .unwrap_or_else(|| panic!("no `mcpServers` or `servers` object:\n{config}"));
            for (name, server) in servers {
                assert!(
                    server.get("command").is_some() || server.get("url").is_some(),
                    "`{name}` has neither a command nor a url:\n{config}"
                );
            }
        }
    }
}
