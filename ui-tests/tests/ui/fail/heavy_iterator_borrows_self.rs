use mcp_light::prelude::*;

#[derive(Clone, Default)]
pub struct Garage {
    bays: Vec<u32>,
}

#[mcp_tools]
impl Garage {
    /// The bays, one at a time.
    #[mcp_heavy]
    fn bay_numbers(&self) -> impl Iterator<Item = u32> + Send + 'static {
        self.bays.clone().into_iter()
    }
}

fn main() {}
