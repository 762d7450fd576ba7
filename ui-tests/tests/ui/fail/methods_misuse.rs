//! `#[mcp_tools]` and the tool methods in it, used wrongly: each mistake
//! is reported where it is, with the fix.
use std::sync::Mutex;

use mcp_light::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
struct Vehicle {
    id: u32,
}

#[derive(Deserialize, JsonSchema)]
struct VehicleId {
    id: u32,
}

struct Fleet(Mutex<Vec<Vehicle>>);

#[mcp_tools]
impl Fleet {
    /// A tool's `&self` is shared by every call.
    #[mcp_tool]
    fn repaint(&mut self, colour: String) -> String {
        colour
    }

    /// A tool borrows the server's state.
    #[mcp_tool]
    fn consume(self) -> u32 {
        0
    }

    #[mcp_tool(resource = "vehicle", action = "retrieve")]
    fn vehicle_get(&self, Parameters(VehicleId { id }): Parameters<VehicleId>) -> Vehicle {
        Vehicle { id }
    }

    /// Not a tool: only a tool method can be a retrieve.
    fn lookup(&self, id: u32) -> Option<u32> {
        Some(id)
    }

    #[mcp_light(create, retrieve = Self::lookup)]
    fn vehicle_create(&self, Parameters(VehicleId { id }): Parameters<VehicleId>) -> Vehicle {
        Vehicle { id }
    }

    #[mcp_light(create, retrieve = Self::vehicle_find)]
    fn vehicle_add(&self, Parameters(VehicleId { id }): Parameters<VehicleId>) -> Vehicle {
        Vehicle { id }
    }

    /// `Parameters<T>` is every argument.
    #[mcp_tool]
    fn both(&self, Parameters(VehicleId { id }): Parameters<VehicleId>, extra: u32) -> u32 {
        id + extra
    }

    /// What describes the arguments is on `T`.
    #[mcp_tool]
    fn described(
        &self,
        /// The vehicle.
        Parameters(VehicleId { id }): Parameters<VehicleId>,
    ) -> u32 {
        id
    }
}

struct Garage;

impl Garage {
    /// A tool method outside `#[mcp_tools]`.
    #[mcp_tool]
    fn open(&self) -> bool {
        true
    }
}

#[mcp_tools(router = garage_router)]
impl Garage {}

trait Service {
    fn ping(&self) -> u32;
}

#[mcp_tools]
impl Service for Garage {
    fn ping(&self) -> u32 {
        1
    }
}

struct Depot<T>(T);

#[mcp_tools]
impl<T: Send + Sync + 'static> Depot<T> {
    #[mcp_tool]
    fn depot_size(&self) -> u32 {
        1
    }
}

fn main() {}
