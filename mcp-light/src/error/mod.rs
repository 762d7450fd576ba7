//! The errors, beneath everything that raises them.
//!
//! - `tool`: what a tool returns ([`ToolError`](tool::ToolError)), what a
//!   build refuses, what a store and an unfinished call answer;
//! - `config`: what a setting answers a value it cannot take with
//!   ([`ConfigError`](config::ConfigError)).

pub(crate) mod config;
pub(crate) mod tool;
