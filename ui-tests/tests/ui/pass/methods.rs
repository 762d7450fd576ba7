//! Tools as methods of a `#[mcp_tools]` impl, written as rmcp writes them:
//! `&self` the server's state, `Parameters<T>` the whole arguments,
//! `Json<T>` and `ErrorData` as answers, `description` on the attribute.
//! The methods stay methods, and register as functions do.
use std::sync::Mutex;

use mcp_light::catalog::{PublishedTool, Registry, ToolKind};
use mcp_light::prelude::*;
use mcp_light::rmcp::ErrorData;
use serde_json::json;

#[derive(Clone, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(plate)]
pub struct Vehicle {
    pub id: u32,
    pub plate: String,
    pub odometer_km: u32,
}

/// A vehicle to register.
#[derive(Deserialize, JsonSchema)]
pub struct NewVehicle {
    /// The number plate.
    pub plate: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct VehicleId {
    pub id: u32,
}

#[derive(Deserialize, JsonSchema)]
pub struct Odometer {
    pub id: u32,
    /// Kilometres on the clock.
    pub odometer_km: u32,
}

#[derive(Default)]
pub struct Fleet {
    vehicles: Mutex<Vec<Vehicle>>,
}

impl Fleet {
    fn find(&self, id: u32) -> Result<Vehicle, ErrorData> {
        let vehicles = self.vehicles.lock().unwrap();
        vehicles
            .iter()
            .find(|v| v.id == id)
            .cloned()
            .ok_or_else(|| ErrorData::invalid_params(format!("no vehicle {id}"), None))
    }
}

#[mcp_tools]
impl Fleet {
    #[mcp_tool(
        resource = "vehicle",
        action = "retrieve",
        description = "Fetch one vehicle."
    )]
    async fn vehicle_get(
        &self,
        Parameters(VehicleId { id }): Parameters<VehicleId>,
    ) -> Result<Json<Vehicle>, ErrorData> {
        self.find(id).map(Json)
    }

    /// Register a vehicle.
    #[mcp_light(create, resource = "vehicle", retrieve = Self::vehicle_get)]
    fn vehicle_create(&self, params: Parameters<NewVehicle>) -> Json<Vehicle> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let vehicle = Vehicle {
            id: vehicles.len() as u32 + 1,
            plate: params.0.plate,
            odometer_km: 0,
        };
        vehicles.push(vehicle.clone());
        Json(vehicle)
    }

    #[mcp_light(
        partial_update,
        name = "vehicle_odometer",
        resource = "vehicle",
        retrieve = Self::vehicle_get,
        description = "Set a vehicle's odometer."
    )]
    async fn set_odometer(
        &self,
        Parameters(Odometer { id, odometer_km }): Parameters<Odometer>,
    ) -> Result<Json<Vehicle>, ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let vehicle = vehicles
            .iter_mut()
            .find(|v| v.id == id)
            .ok_or_else(|| ErrorData::invalid_params(format!("no vehicle {id}"), None))?;
        vehicle.odometer_km = odometer_km;
        Ok(Json(vehicle.clone()))
    }

    /// Remove a vehicle.
    #[mcp_light(destroy, resource = "vehicle")]
    fn vehicle_delete(
        &self,
        Parameters(VehicleId { id }): Parameters<VehicleId>,
    ) -> Result<(), ErrorData> {
        let mut vehicles = self.vehicles.lock().unwrap();
        let before = vehicles.len();
        vehicles.retain(|v| v.id != id);
        match vehicles.len() < before {
            true => Ok(()),
            false => Err(ErrorData::invalid_params(format!("no vehicle {id}"), None)),
        }
    }

    /// Every vehicle.
    #[mcp_heavy(resource = "vehicle", action = "list")]
    async fn vehicle_list(&self) -> Json<Vec<Vehicle>> {
        Json(self.vehicles.lock().unwrap().clone())
    }

    /// A tool that takes no `self`, with named arguments as a free
    /// function's.
    #[mcp_tool(inline)]
    fn plate_valid(
        /// The plate to check.
        plate: String,
    ) -> bool {
        !plate.is_empty()
    }

    /// Not a tool: stays as it is.
    fn count(&self) -> usize {
        self.vehicles.lock().unwrap().len()
    }
}

fn published() -> Registry {
    Registry::collect().unwrap()
}

fn schema(name: &str) -> serde_json::Value {
    let registry = published();
    let tool: &PublishedTool = registry.iter().find(|t| t.name() == name).unwrap();
    serde_json::to_value(tool.input_schema()).unwrap()
}

fn main() {
    // The methods are ordinary methods.
    let fleet = Fleet::default();
    let Json(first) = fleet.vehicle_create(Parameters(NewVehicle {
        plate: "AB-123".into(),
    }));
    assert_eq!(first.id, 1);
    assert_eq!(fleet.count(), 1);
    assert!(Fleet::plate_valid("X".into()));

    // Registered as functions are: every tool of the impl, and by name.
    let registry = published();
    let names: Vec<_> = registry.iter().map(PublishedTool::name).collect();
    assert_eq!(
        names,
        [
            "plate_valid",
            "vehicle_create",
            "vehicle_delete",
            "vehicle_get",
            "vehicle_list",
            "vehicle_odometer"
        ]
    );
    let named = Registry::from_tools(tools![Fleet::vehicle_get, Fleet::vehicle_create]).unwrap();
    assert_eq!(named.len(), 2);
    let get = registry.iter().find(|t| t.name() == "vehicle_get").unwrap();
    assert_eq!(get.def().description(), "Fetch one vehicle.");
    assert!(
        get.def().function().ends_with("Fleet::vehicle_get"),
        "{}",
        get.def().function()
    );
    let odometer = registry
        .iter()
        .find(|t| t.name() == "vehicle_odometer")
        .unwrap();
    assert_eq!(odometer.def().retrieve(), Some("vehicle_get"));
    assert!(matches!(odometer.def().kind(), ToolKind::Write { .. }));

    // `T`'s schema, flat, plus what mcp-light adds.
    let create = schema("vehicle_create");
    assert_eq!(create["required"], json!(["plate"]));
    assert_eq!(
        create["properties"]["plate"]["description"],
        "The number plate."
    );
    assert!(create["properties"]["verify"].is_object(), "{create}");
    let list = schema("vehicle_list");
    assert!(
        list["properties"]["continuation_token"].is_object(),
        "{list}"
    );
    // A doc comment on a named parameter is its description.
    let valid = schema("plate_valid");
    assert_eq!(
        valid["properties"]["plate"]["description"],
        "The plate to check."
    );

    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let missing = Server::from_registry().build().unwrap_err().to_string();
            assert!(missing.contains("Fleet"), "{missing}");
            let server = Server::from_registry().with_state(fleet).build().unwrap();
            let call = |name: &'static str, args: serde_json::Value| {
                let server = server.clone();
                async move { server.call(name, args, Caller::Process).await }
            };

            let created = call("vehicle_create", json!({"plate": "CD-456"})).await;
            assert_eq!(
                created.structured_content.unwrap(),
                json!({"id": 2, "plate": "CD-456", "status_code": 201, "data_size": 41})
            );
            let got = call("vehicle_get", json!({"id": 2})).await;
            assert_eq!(got.structured_content.unwrap()["plate"], "CD-456");

            // An undeclared argument is refused, naming the declared ones.
            let nested = call(
                "vehicle_odometer",
                json!({"id": 2, "data": {"odometer_km": 5}}),
            )
            .await;
            assert_eq!(nested.is_error, Some(true));
            let text = serde_json::to_string(&nested.content).unwrap();
            assert!(
                text.contains(
                    "unknown field `data`; `vehicle_odometer` takes `id`, `odometer_km`; \
                     send them at the top level, not inside `data`"
                ),
                "{text}"
            );
            let set = call("vehicle_odometer", json!({"id": 2, "odometer_km": 5})).await;
            assert_eq!(set.structured_content.unwrap()["status_code"], 200);

            // An `ErrorData` is the tool failing.
            let absent = call("vehicle_get", json!({"id": 9})).await;
            assert_eq!(absent.is_error, Some(true));
            let text = serde_json::to_string(&absent.content).unwrap();
            assert!(text.contains("no vehicle 9"), "{text}");
            // What goes out over MCP as the JSON-RPC error, in process.
            let error = absent.structured_content.unwrap();
            assert_eq!(error["code"], -32602);
            assert_eq!(error["message"], "no vehicle 9");

            let deleted = call("vehicle_delete", json!({"id": 1})).await;
            assert_eq!(
                deleted.structured_content.unwrap(),
                json!({"id": 1, "deleted": true, "status_code": 204})
            );

            let listed = call("vehicle_list", json!({})).await;
            assert!(listed.is_error != Some(true));
            let valid = call("plate_valid", json!({"plate": ""})).await;
            assert_eq!(valid.structured_content.unwrap(), json!({"result": false}));
        });
}
