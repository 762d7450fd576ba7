//! mcp-light's documentation beyond its items: the contract every tool keeps,
//! the guides to each part, and recipes for real programs.
//!
//! The pages live in the repository's `docs/` directory, where they read as
//! plain Markdown; here their Rust blocks are doctests, so they cannot drift
//! from the code.

// Each page's links point where they work on GitHub (`contract.md`,
// `../BENCHMARKS.md`); the definitions `links!` puts first win, since the
// first definition of a link does, so rustdoc sends the same links to this
// build's pages instead.

/// The link definitions every page starts with: the guides by the names the
/// pages and the README give them.
macro_rules! links {
    () => {
"[the contract]: crate::docs::contract\n\
         [recipes]: crate::docs::recipes\n\
         [quick start]: crate#quick-start\n\
         [operating]: crate::docs::operating\n\
         [deploying]: crate::docs::deploying\n\
         [axum]: crate::docs::axum\n\
         [http by hand]: crate::docs::http_by_hand\n\
         [content recipes]: crate::docs::recipes#a-tool-that-answers-images-audio-or-resources\n\
         [talking back]: crate::docs::talking_back\n\
         [coming from rmcp]: crate::docs::coming_from_rmcp\n\
         [tasks]: crate::docs::tasks\n\
         [gateway]: crate::docs::gateway\n\
         [contract: heavy reads]: crate::docs::contract#heavy-reads\n\
         [contract: how results are kept]: crate::docs::contract#how-large-results-are-kept\n\
         [contract: inline budget]: crate::docs::contract#whole-or-probe-the-inline-budget\n\
         [contract: answers on the wire]: crate::docs::contract#answers-on-the-wire\n\
         [contract: bounds]: crate::docs::contract#bounds\n\
         [contract: what a call came to]: crate::docs::contract#what-a-call-came-to\n\
         [contract: the three outcomes]: crate::docs::contract#the-three-outcomes\n\
         [answers that fit the client]: crate::docs::contract#answers-that-fit-the-client\n\
         [benchmarks: http]: https://github.com/mcp-light/mcp-light/blob/main/BENCHMARKS.md#5-http-and-redis\n\
         [benchmarks: heavy reads]: https://github.com/mcp-light/mcp-light/blob/main/BENCHMARKS.md#heavy-reads-at-a-million-rows\n\
         [BENCHMARKS.md]: https://github.com/mcp-light/mcp-light/blob/main/BENCHMARKS.md\n"
    };
}

pub mod contract {
    //! [`Server`]: crate::Server
    #![doc = links!()]
    #![doc = include_str!("../docs/contract.md")]
}

pub mod recipes {
    #![doc = links!()]
    #![doc = include_str!("../docs/recipes.md")]
}

pub mod writes {
    #![doc = links!()]
    #![doc = include_str!("../docs/writes.md")]
}

pub mod heavy_reads {
    #![doc = links!()]
    #![doc = include_str!("../docs/heavy-reads.md")]
}

pub mod deploying {
    #![doc = links!()]
    #![doc = include_str!("../docs/deploying.md")]
}

pub mod operating {
    #![doc = links!()]
    #![doc = include_str!("../docs/operating.md")]
}

pub mod axum {
    #![doc = links!()]
    #![doc = include_str!("../docs/axum.md")]
}

pub mod http_by_hand {
    #![doc = links!()]
    #![doc = include_str!("../docs/http-by-hand.md")]
}

pub mod talking_back {
    #![doc = links!()]
    #![doc = include_str!("../docs/talking-back.md")]
}

pub mod tasks {
    #![doc = links!()]
    #![doc = include_str!("../docs/tasks.md")]
}

pub mod content {
    #![doc = links!()]
    #![doc = include_str!("../docs/content.md")]
}

pub mod coming_from_rmcp {
    #![doc = links!()]
    #![doc = include_str!("../docs/coming-from-rmcp.md")]
}

pub mod conformance {
    #![doc = links!()]
    #![doc = include_str!("../docs/conformance.md")]
}

pub mod gateway {
    #![doc = links!()]
    #![doc = include_str!("../docs/gateway.md")]
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// The body of every fenced block of `page` whose info string is
    /// `lang`.
    fn blocks(page: &str, lang: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut lines = page.lines();
        while let Some(line) = lines.next() {
            // A block may be indented under a list item.
            if line.trim_start().strip_prefix("```") == Some(lang) {
                let body: Vec<&str> = lines
                    .by_ref()
                    .take_while(|l| l.trim_start() != "```")
                    .collect();
                blocks.push(body.join("\n"));
            }
        }
        blocks
    }

    #[test]
    fn the_gateways_host_configurations_start_it_before_the_server() {
        let page = include_str!("../docs/gateway.md");
        let json = blocks(page, "json");
        let vs_code = json
            .iter()
            .find(|block| block.contains("\"servers\""))
            .expect("VS Code's configuration");
        let value: Value = serde_json::from_str(vs_code.trim()).expect("VS Code's is JSON");
        let files = &value["servers"]["files"];
        assert_eq!(files["command"], "mcp-light-gateway");
        assert_eq!(files["args"][0], "--", "the server's command follows `--`");
        let toml = blocks(page, "toml");
        let toml = toml
            .iter()
            .find(|block| block.contains("[mcp_servers."))
            .expect("Codex's configuration");
        assert!(toml.contains("command = \"mcp-light-gateway\""), "{toml}");
        assert!(toml.contains("args = [\"--\", \"npx\""), "{toml}");
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
