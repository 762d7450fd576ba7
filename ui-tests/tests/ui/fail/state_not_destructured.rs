//! Host state taken the way an axum handler may write it, with a plain
//! name: one error, at the argument (over the parameter list when there are
//! several), saying to destructure it.

use mcp_light::prelude::*;

pub struct Db;

#[mcp_tool]
fn device_count(db: State<Db>) -> usize {
    let _ = db;
    0
}

pub struct Catalogue {
    items: Vec<String>,
}

impl Catalogue {
    fn find(&self, name: &str) -> Option<&String> {
        self.items.iter().find(|item| *item == name)
    }
}

/// Find an item.
#[mcp_tool]
fn item_find(catalogue: State<Catalogue>, name: String) -> Option<String> {
    catalogue.find(&name).cloned()
}

fn main() {}
