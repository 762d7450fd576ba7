//! Integration tests of mcp-light.
