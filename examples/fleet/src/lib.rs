//! The fleet of `examples/fleet-rmcp`, moved to mcp-light by changing
//! attributes: `#[mcp_tools]` where `#[tool_router]` was, `#[mcp_tool]`,
//! `#[mcp_light]` and `#[mcp_heavy]` where `#[tool]` was. `fleet_stats`
//! stays in rmcp's own router, served beside the others.
//!
//! `diff examples/fleet-rmcp/src/lib.rs examples/fleet/src/lib.rs` shows
//! the whole migration.

use std::sync::{Arc, Mutex};

use mcp_light::prelude::*;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a vehicle runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fuel {
    Diesel,
    Petrol,
    Electric,
    Hybrid,
}

/// Whether a vehicle is on the road.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Active,
    Maintenance,
    Retired,
}

/// A vehicle of the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(plate)]
pub struct Vehicle {
    pub id: u32,
    pub plate: String,
    pub vin: String,
    pub make: String,
    pub model: String,
    pub year: u16,
    pub colour: String,
    pub fuel: Fuel,
    pub odometer_km: u32,
    pub status: Status,
    pub depot: String,
    pub driver: Option<String>,
    pub notes: String,
}

/// Which vehicle.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VehicleId {
    /// The vehicle's id.
    pub id: u32,
}

/// A vehicle to register.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NewVehicle {
    /// The number plate, unique in the fleet.
    pub plate: String,
    /// The vehicle identification number.
    pub vin: String,
    pub make: String,
    pub model: String,
    pub year: u16,
    pub colour: String,
    pub fuel: Fuel,
    /// Kilometres on the clock; 0 when left out.
    #[serde(default)]
    pub odometer_km: u32,
    /// The depot the vehicle is kept at.
    pub depot: String,
    #[serde(default)]
    pub driver: Option<String>,
    #[serde(default)]
    pub notes: String,
}

/// Vehicles to register at once.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewVehicles {
    pub vehicles: Vec<NewVehicle>,
}

/// The fields to change on one vehicle; those left out stay as they are.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VehiclePatch {
    /// The vehicle's id.
    pub id: u32,
    pub odometer_km: Option<u32>,
    pub status: Option<Status>,
    pub depot: Option<String>,
    pub driver: Option<String>,
    pub notes: Option<String>,
}

/// Which vehicles to list.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct VehicleFilter {
    /// Only the vehicles kept at this depot.
    pub depot: Option<String>,
    /// Only the vehicles in this status.
    pub status: Option<Status>,
}

/// What a delete answers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub id: u32,
    pub deleted: bool,
}

/// The fleet at a glance.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
pub struct FleetStats {
    pub vehicles: usize,
    pub active: usize,
    pub maintenance: usize,
    pub retired: usize,
    pub total_km: u64,
}

/// The fleet server: its vehicles, shared by its clones.
#[derive(Clone)]
pub struct Fleet {
    vehicles: Arc<Mutex<Vec<Vehicle>>>,
    tool_router: ToolRouter<Fleet>,
}

impl Default for Fleet {
    fn default() -> Self {
        Fleet::new()
    }
}

impl Fleet {
    fn register(vehicles: &mut Vec<Vehicle>, new: NewVehicle) -> Result<Vehicle, ErrorData> {
        if vehicles.iter().any(|v| v.plate == new.plate) {
            return Err(ErrorData::invalid_params(
                format!("the plate {} is already registered", new.plate),
                None,
            ));
        }
        let vehicle = Vehicle {
            id: vehicles.last().map_or(1, |last| last.id + 1),
            plate: new.plate,
            vin: new.vin,
            make: new.make,
            model: new.model,
            year: new.year,
            colour: new.colour,
            fuel: new.fuel,
            odometer_km: new.odometer_km,
            status: Status::Active,
            depot: new.depot,
            driver: new.driver,
            notes: new.notes,
        };
        vehicles.push(vehicle.clone());
        Ok(vehicle)
    }

    fn no_vehicle(id: u32) -> ErrorData {
        ErrorData::invalid_params(format!("no vehicle has the id {id}"), None)
    }
}

#[mcp_tools]
impl Fleet {
    pub fn new() -> Self {
        Self {
            vehicles: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    #[mcp_tool(
        resource = "vehicle",
        action = "retrieve",
        description = "Fetch one vehicle by its id."
    )]
    pub async fn vehicle_get(
        &self,
        Parameters(VehicleId { id }): Parameters<VehicleId>,
    ) -> Result<Json<Vehicle>, ErrorData> {
        let vehicles = self.vehicles.lock().unwrap();
        match vehicles.iter().find(|v| v.id == id) {
            Some(vehicle) => Ok(Json(vehicle.clone())),
            None => Err(Self::no_vehicle(id)),
        }
    }

    #[mcp_heavy(
        resource = "vehicle",
        action = "list",
        description = "List the vehicles, at one depot or in one status."
    )]
    pub async fn vehicle_list(
        &self,
        Parameters(filter): Parameters<VehicleFilter>,
    ) -> Json<Vec<Vehicle>> {
        let vehicles = self.vehicles.lock().unwrap();
        let listed = vehicles.iter().filter(|v| {
            filter.depot.as_ref().is_none_or(|depot| v.depot == *depot)
                && filter.status.is_none_or(|status| v.status == status)
        });
        Json(listed.cloned().collect())
    }

    #[mcp_light(create, resource = "vehicle", retrieve = Self::vehicle_get, description = "Register one vehicle.")]
    pub async fn vehicle_create(
        &self,
        Parameters(new): Parameters<NewVehicle>,
    ) -> Result<Json<Vehicle>, ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        Self::register(&mut vehicles, new).map(Json)
    }

    #[mcp_light(bulk_create, resource = "vehicle", retrieve = Self::vehicle_get, description = "Register many vehicles at once.")]
    pub async fn vehicle_bulk_create(
        &self,
        Parameters(NewVehicles { vehicles: new }): Parameters<NewVehicles>,
    ) -> Result<Json<Vec<Vehicle>>, ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let created = new
            .into_iter()
            .map(|new| Self::register(&mut vehicles, new))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Json(created))
    }

    #[mcp_light(partial_update, resource = "vehicle", retrieve = Self::vehicle_get, description = "Change some fields of one vehicle.")]
    pub async fn vehicle_update(
        &self,
        Parameters(patch): Parameters<VehiclePatch>,
    ) -> Result<Json<Vehicle>, ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let Some(vehicle) = vehicles.iter_mut().find(|v| v.id == patch.id) else {
            return Err(Self::no_vehicle(patch.id));
        };
        if let Some(odometer_km) = patch.odometer_km {
            vehicle.odometer_km = odometer_km;
        }
        if let Some(status) = patch.status {
            vehicle.status = status;
        }
        if let Some(depot) = patch.depot {
            vehicle.depot = depot;
        }
        if let Some(driver) = patch.driver {
            vehicle.driver = Some(driver);
        }
        if let Some(notes) = patch.notes {
            vehicle.notes = notes;
        }
        Ok(Json(vehicle.clone()))
    }

    #[mcp_light(
        destroy,
        resource = "vehicle",
        description = "Remove a vehicle from the fleet."
    )]
    pub async fn vehicle_delete(
        &self,
        Parameters(VehicleId { id }): Parameters<VehicleId>,
    ) -> Result<Json<Deleted>, ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let before = vehicles.len();
        vehicles.retain(|v| v.id != id);
        if vehicles.len() == before {
            return Err(Self::no_vehicle(id));
        }
        Ok(Json(Deleted { id, deleted: true }))
    }
}

#[tool_router]
impl Fleet {
    #[tool(description = "Count the vehicles by status, and the kilometres they ran.")]
    pub async fn fleet_stats(&self) -> Json<FleetStats> {
        let vehicles = self.vehicles.lock().unwrap();
        let count = |status| vehicles.iter().filter(|v| v.status == status).count();
        Json(FleetStats {
            vehicles: vehicles.len(),
            active: count(Status::Active),
            maintenance: count(Status::Maintenance),
            retired: count(Status::Retired),
            total_km: vehicles.iter().map(|v| u64::from(v.odometer_km)).sum(),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Fleet {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        config.instructions = Some("A fleet of vehicles: register, find, update, retire.".into());
        config
    }
}

/// A vehicle to register, numbered `n`: what the tests and the comparison
/// send.
pub fn new_vehicle(n: usize) -> NewVehicle {
    NewVehicle {
        plate: format!("FL-{n:04}"),
        vin: format!("WVWZZZ1JZ3W{n:06}"),
        make: "Volkswagen".into(),
        model: "Transporter".into(),
        year: 2021,
        colour: "white".into(),
        fuel: Fuel::Diesel,
        odometer_km: 1_000 * n as u32,
        depot: if n.is_multiple_of(2) {
            "north"
        } else {
            "south"
        }
        .into(),
        driver: None,
        notes: "leased until 2027, serviced every 30,000 km".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_created_vehicle_is_found_by_its_id() {
        let fleet = Fleet::new();
        let Json(created) = fleet
            .vehicle_create(Parameters(new_vehicle(1)))
            .await
            .unwrap();
        let Json(found) = fleet
            .vehicle_get(Parameters(VehicleId { id: created.id }))
            .await
            .unwrap();
        assert_eq!(found, created);
        assert_eq!(found.status, Status::Active);
    }

    #[tokio::test]
    async fn a_bulk_create_registers_every_vehicle_and_refuses_a_plate_twice() {
        let fleet = Fleet::new();
        let new = (1..=3).map(new_vehicle).collect();
        let Json(created) = fleet
            .vehicle_bulk_create(Parameters(NewVehicles { vehicles: new }))
            .await
            .unwrap();
        assert_eq!(created.len(), 3);
        let again = fleet.vehicle_create(Parameters(new_vehicle(2))).await;
        let Err(refused) = again else {
            panic!("a plate registered twice")
        };
        assert!(refused.message.contains("FL-0002"));
    }

    #[tokio::test]
    async fn an_update_changes_only_the_fields_it_names() {
        let fleet = Fleet::new();
        let Json(created) = fleet
            .vehicle_create(Parameters(new_vehicle(4)))
            .await
            .unwrap();
        let patch = VehiclePatch {
            id: created.id,
            odometer_km: Some(12_345),
            status: Some(Status::Maintenance),
            depot: None,
            driver: None,
            notes: None,
        };
        let Json(updated) = fleet.vehicle_update(Parameters(patch)).await.unwrap();
        assert_eq!(updated.odometer_km, 12_345);
        assert_eq!(updated.status, Status::Maintenance);
        assert_eq!(updated.depot, created.depot);
        let Json(stats) = fleet.fleet_stats().await;
        assert_eq!(stats.maintenance, 1);
    }

    #[tokio::test]
    async fn a_deleted_vehicle_is_gone() {
        let fleet = Fleet::new();
        let Json(created) = fleet
            .vehicle_create(Parameters(new_vehicle(5)))
            .await
            .unwrap();
        let id = VehicleId { id: created.id };
        fleet.vehicle_delete(Parameters(id)).await.unwrap();
        let gone = fleet
            .vehicle_get(Parameters(VehicleId { id: created.id }))
            .await;
        let Err(gone) = gone else {
            panic!("the vehicle is gone")
        };
        assert_eq!(gone.message, "no vehicle has the id 1");
        let Json(listed) = fleet
            .vehicle_list(Parameters(VehicleFilter::default()))
            .await;
        assert!(listed.is_empty());
    }
}
