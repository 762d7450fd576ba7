//! The records the inventory keeps, shaped like NetBox's DCIM API.
//!
//! Input types (`NewDevice`, `DevicePatch`, `DeviceFilter`, `NewSite`) are
//! closed (`deny_unknown_fields`): a misspelt field is an error naming it,
//! not a silent no-op. Their doc comments end up in `tools/list`, which every
//! caller pays for, so only fields whose meaning is not obvious carry one.

use std::collections::BTreeMap;

use mcp_light::prelude::*;
use serde_json::Value;
use uuid::Uuid;

/// Lifecycle state of a device, as NetBox names them.
//
// The variants carry no doc comments on purpose: schemars would turn each
// into a `oneOf` branch with a description, tripling the enum's cost in
// `tools/list`. active = in service, planned = not installed yet, staged =
// installed and being configured, failed, offline = powered off,
// decommissioning = on its way out, inventory = on a shelf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = drop_description)]
#[allow(missing_docs)]
pub enum DeviceStatus {
    #[default]
    Active,
    Planned,
    Staged,
    Failed,
    Offline,
    Decommissioning,
    Inventory,
}

impl DeviceStatus {
    /// The name stored in the database and shown on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceStatus::Active => "active",
            DeviceStatus::Planned => "planned",
            DeviceStatus::Staged => "staged",
            DeviceStatus::Failed => "failed",
            DeviceStatus::Offline => "offline",
            DeviceStatus::Decommissioning => "decommissioning",
            DeviceStatus::Inventory => "inventory",
        }
    }

    /// Every status, for parsing what the database holds.
    pub const ALL: [DeviceStatus; 7] = [
        DeviceStatus::Active,
        DeviceStatus::Planned,
        DeviceStatus::Staged,
        DeviceStatus::Failed,
        DeviceStatus::Offline,
        DeviceStatus::Decommissioning,
        DeviceStatus::Inventory,
    ];

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<DeviceStatus> {
        DeviceStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A device as the inventory answers it: the full NetBox-like record.
///
/// `site_slug` and `role` appear in every lean envelope beside `id`, `url`
/// and `name`, so an agent can tell where a written device went without
/// reading it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(site_slug, role)]
pub struct Device {
    /// Server-assigned identifier.
    pub id: Uuid,
    /// API path of this device: `/api/dcim/devices/{id}/`.
    pub url: String,
    /// Host name, unique within its site.
    pub name: String,
    /// Slug of the site the device is in.
    pub site_slug: String,
    /// Functional role, e.g. `leaf`, `spine`, `firewall`.
    pub role: String,
    /// Hardware model.
    pub device_type: String,
    /// Operating system family.
    pub platform: Option<String>,
    /// Chassis serial number.
    pub serial: String,
    /// Inventory tag, unique across the inventory.
    pub asset_tag: Option<String>,
    /// Lifecycle state.
    pub status: DeviceStatus,
    /// Rack name within the site.
    pub rack: Option<String>,
    /// Lowest rack unit the device occupies.
    pub position: Option<u16>,
    /// Rack face the device is mounted on: `front` or `rear`.
    pub face: Option<String>,
    /// Direction of cooling air, e.g. `front-to-rear`.
    pub airflow: Option<String>,
    /// Free text.
    pub comments: String,
    /// Tag slugs.
    pub tags: Vec<String>,
    /// Site-specific extra fields.
    pub custom_fields: BTreeMap<String, Value>,
    /// When the device was created (RFC 3339, UTC).
    pub created: String,
    /// When the device last changed (RFC 3339, UTC).
    pub last_updated: String,
}

/// The most characters a device's name may have (NetBox's limit).
pub const DEVICE_NAME_MAX: usize = 64;

/// The most characters a site's name or slug may have (NetBox's limit).
pub const SITE_NAME_MAX: usize = 100;

/// What a caller sends to create (or fully replace) a device: the writable
/// fields of [`Device`], which documents them. Only the fields whose rules
/// are not obvious carry a description here, since each one is published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = drop_description)]
#[allow(missing_docs)]
pub struct NewDevice {
    #[schemars(length(max = DEVICE_NAME_MAX))]
    pub name: String,
    /// An existing site's slug.
    pub site_slug: String,
    pub role: String,
    pub device_type: String,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub serial: String,
    /// Unique across the inventory.
    #[serde(default)]
    pub asset_tag: Option<String>,
    #[serde(default)]
    pub status: DeviceStatus,
    #[serde(default)]
    pub rack: Option<String>,
    /// Lowest rack unit, from 1.
    #[serde(default)]
    #[schemars(schema_with = "rack_unit")]
    pub position: Option<u16>,
    /// front or rear.
    #[serde(default)]
    pub face: Option<String>,
    #[serde(default)]
    pub airflow: Option<String>,
    #[serde(default)]
    pub comments: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub custom_fields: BTreeMap<String, Value>,
}

impl NewDevice {
    /// The device record this becomes once it is stored under `id`.
    pub fn into_device(self, id: Uuid, created: String, last_updated: String) -> Device {
        Device {
            id,
            url: device_url(id),
            name: self.name,
            site_slug: self.site_slug,
            role: self.role,
            device_type: self.device_type,
            platform: self.platform,
            serial: self.serial,
            asset_tag: self.asset_tag,
            status: self.status,
            rack: self.rack,
            position: self.position,
            face: self.face,
            airflow: self.airflow,
            comments: self.comments,
            tags: self.tags,
            custom_fields: self.custom_fields,
            created,
            last_updated,
        }
    }
}

/// A device's URL, NetBox style.
pub fn device_url(id: Uuid) -> String {
    format!("/api/dcim/devices/{id}/")
}

/// The fields a partial update may change, as in [`NewDevice`]; absent
/// fields keep their values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = drop_description)]
#[allow(missing_docs)]
pub struct DevicePatch {
    #[schemars(length(max = DEVICE_NAME_MAX))]
    pub name: Option<String>,
    pub site_slug: Option<String>,
    pub role: Option<String>,
    pub device_type: Option<String>,
    pub platform: Option<String>,
    pub serial: Option<String>,
    pub asset_tag: Option<String>,
    pub status: Option<DeviceStatus>,
    pub rack: Option<String>,
    #[serde(default)]
    #[schemars(schema_with = "rack_unit")]
    pub position: Option<u16>,
    pub face: Option<String>,
    pub airflow: Option<String>,
    pub comments: Option<String>,
    pub tags: Option<Vec<String>>,
    /// Merged into the device's; a null value removes that key.
    pub custom_fields: Option<BTreeMap<String, Value>>,
}

/// A site (a building, a data-centre hall) devices live in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(slug)]
pub struct Site {
    /// Server-assigned identifier.
    pub id: i64,
    /// API path of this site: `/api/dcim/sites/{id}/`.
    pub url: String,
    /// Display name.
    pub name: String,
    /// Short unique handle devices refer to.
    pub slug: String,
    /// Lifecycle state.
    pub status: SiteStatus,
    /// Region slug.
    pub region: Option<String>,
    /// Data-centre or building code.
    pub facility: Option<String>,
    /// IANA time zone, e.g. `Europe/Amsterdam`.
    pub time_zone: Option<String>,
    /// Street address.
    pub physical_address: String,
    /// Free text.
    pub description: String,
    /// How many devices the site holds.
    pub device_count: i64,
    /// When the site was created (RFC 3339, UTC).
    pub created: String,
}

/// What a caller sends to create a site: the writable fields of [`Site`],
/// which documents them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = drop_description)]
#[allow(missing_docs)]
pub struct NewSite {
    #[schemars(length(max = SITE_NAME_MAX))]
    pub name: String,
    /// Unique; lowercase letters, digits, - and _.
    #[schemars(length(max = SITE_NAME_MAX))]
    pub slug: String,
    #[serde(default)]
    pub status: SiteStatus,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub facility: Option<String>,
    /// IANA name, e.g. Europe/Amsterdam.
    #[serde(default)]
    pub time_zone: Option<String>,
    #[serde(default)]
    pub physical_address: String,
    #[serde(default)]
    pub description: String,
}

/// Lifecycle state of a site, as NetBox names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(transform = drop_description)]
#[allow(missing_docs)]
pub enum SiteStatus {
    #[default]
    Active,
    Planned,
    Staging,
    Decommissioning,
    Retired,
}

impl SiteStatus {
    /// Every status, for parsing what the database holds.
    pub const ALL: [SiteStatus; 5] = [
        SiteStatus::Active,
        SiteStatus::Planned,
        SiteStatus::Staging,
        SiteStatus::Decommissioning,
        SiteStatus::Retired,
    ];

    /// The name stored in the database and shown on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            SiteStatus::Active => "active",
            SiteStatus::Planned => "planned",
            SiteStatus::Staging => "staging",
            SiteStatus::Decommissioning => "decommissioning",
            SiteStatus::Retired => "retired",
        }
    }

    /// The status named `name`, if any.
    pub fn parse(name: &str) -> Option<SiteStatus> {
        SiteStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// Keeps a type's own doc comment out of the published schema: it is for
/// Rust readers, and every word in `tools/list` costs every caller.
fn drop_description(schema: &mut schemars::Schema) {
    schema.remove("description");
}

/// A rack unit: an integer from 1, or null (no `format`/`maximum` noise).
fn rack_unit(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["integer", "null"], "minimum": 1})
}
