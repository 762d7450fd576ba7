//! A deterministic generator of realistic inventory records.
//!
//! The same `(count, seed)` always gives the same devices, on every machine:
//! the randomness is a SplitMix64 stream, so no `rand` crate is needed and a
//! measurement made on one run can be repeated on another. A device written
//! from these comes out at roughly 720 bytes of compact JSON, like a device
//! record in a real inventory's bulk echo.
//!
//! It depends on nothing but the model, so the token report and the
//! benchmarks use it without a database.

use std::collections::BTreeMap;

use serde_json::json;

use crate::model::{DeviceStatus, NewDevice, NewSite, SiteStatus};

/// The sites every generated device belongs to; create them first.
pub fn new_sites() -> Vec<NewSite> {
    let site =
        |slug: &str, name: &str, region: &str, facility: &str, tz: &str, addr: &str| NewSite {
            name: name.to_owned(),
            slug: slug.to_owned(),
            status: SiteStatus::Active,
            region: Some(region.to_owned()),
            facility: Some(facility.to_owned()),
            time_zone: Some(tz.to_owned()),
            physical_address: addr.to_owned(),
            description: format!("{name}, production hall"),
        };
    vec![
        site(
            "ams1",
            "Amsterdam DC1",
            "eu-west",
            "AM7",
            "Europe/Amsterdam",
            "Kuiperbergweg 13, 1101 AE Amsterdam",
        ),
        site(
            "fra2",
            "Frankfurt DC2",
            "eu-central",
            "FR5",
            "Europe/Berlin",
            "Kleyerstrasse 90, 60326 Frankfurt",
        ),
        site(
            "nyc3",
            "New York DC3",
            "us-east",
            "NY2",
            "America/New_York",
            "275 Hartz Way, Secaucus, NJ 07094",
        ),
        site(
            "sin1",
            "Singapore DC1",
            "ap-southeast",
            "SG3",
            "Asia/Singapore",
            "26A Ayer Rajah Crescent, 139963",
        ),
    ]
}

/// A role and the hardware that fills it.
struct Role {
    name: &'static str,
    device_type: &'static str,
    platform: &'static str,
    serial_prefix: &'static str,
    airflow: &'static str,
}

const ROLES: [Role; 6] = [
    Role {
        name: "leaf",
        device_type: "Arista DCS-7050CX3-32S",
        platform: "arista-eos",
        serial_prefix: "JPE",
        airflow: "front-to-rear",
    },
    Role {
        name: "spine",
        device_type: "Arista DCS-7280CR3-32P4",
        platform: "arista-eos",
        serial_prefix: "JAS",
        airflow: "front-to-rear",
    },
    Role {
        name: "border",
        device_type: "Juniper QFX5120-48Y",
        platform: "junos",
        serial_prefix: "WS37",
        airflow: "front-to-rear",
    },
    Role {
        name: "firewall",
        device_type: "Palo Alto PA-5220",
        platform: "panos",
        serial_prefix: "0130",
        airflow: "front-to-rear",
    },
    Role {
        name: "oob",
        device_type: "Cisco C9200L-48T-4G",
        platform: "cisco-ios-xe",
        serial_prefix: "JAE",
        airflow: "side-to-rear",
    },
    Role {
        name: "console",
        device_type: "Opengear CM8148",
        platform: "opengear",
        serial_prefix: "CM81",
        airflow: "rear-to-front",
    },
];

const COMMENTS: [&str; 4] = [
    "Racked and cabled per {chg}; uplinks on ports 49-52, mgmt on OOB port 1.",
    "Replaced PSU2 under RMA; burn-in passed 72h. See {chg} for the cabling.",
    "Staged for the row refresh; config pushed by the pipeline, {chg} pending.",
    "Migrated from the legacy row; LLDP neighbours verified after {chg}.",
];

const OWNERS: [&str; 3] = ["netops", "secops", "platform"];

/// `count` new devices spread over the sites of [`new_sites`], the same for
/// the same `seed`.
///
/// Names (`{site}-{role}-{n:04}`) and asset tags are unique within one call,
/// and asset tags differ between seeds; two calls with overlapping counts
/// name the same devices, which the inventory refuses the second time.
///
/// ```
/// use inventory::fixture;
///
/// let devices = fixture::new_devices(60, 1);
/// assert_eq!(devices, fixture::new_devices(60, 1));
/// assert!(devices[0].name.ends_with("-0001")); // `{site}-{role}-0001`
/// ```
pub fn new_devices(count: usize, seed: u64) -> Vec<NewDevice> {
    devices(count, seed).collect()
}

/// The devices of [`new_devices`], made one at a time as they are taken:
/// for seeding a million of them without holding them all.
///
/// ```
/// use inventory::fixture;
///
/// let first: Vec<_> = fixture::devices(1_000_000, 1).take(60).collect();
/// assert_eq!(first, fixture::new_devices(60, 1));
/// ```
pub fn devices(count: usize, seed: u64) -> impl ExactSizeIterator<Item = NewDevice> + Send {
    let sites = new_sites();
    let mut rng = SplitMix64(seed);
    (0..count).map(move |i| {
        let site = &sites[rng.below(sites.len())];
        let role = &ROLES[rng.below(ROLES.len())];
        let row = b"ABCDEF"[rng.below(6)] as char;
        let change = format!("CHG{:07}", 40_000 + rng.below(60_000));
        let comments = COMMENTS[rng.below(COMMENTS.len())].replace("{chg}", &change);
        let status = match rng.below(10) {
            0 => DeviceStatus::Planned,
            1 => DeviceStatus::Staged,
            _ => DeviceStatus::Active,
        };
        let mut custom_fields = BTreeMap::new();
        custom_fields.insert("owner".to_owned(), json!(OWNERS[rng.below(OWNERS.len())]));
        custom_fields.insert("mgmt_vlan".to_owned(), json!(100 + rng.below(20)));
        custom_fields.insert(
            "contract_id".to_owned(),
            json!(format!("SVC-2025-{:05}", rng.below(100_000))),
        );
        custom_fields.insert(
            "commissioned".to_owned(),
            json!(format!(
                "2025-{:02}-{:02}",
                1 + rng.below(12),
                1 + rng.below(28)
            )),
        );
        custom_fields.insert(
            "support_tier".to_owned(),
            json!(["gold", "silver", "bronze"][rng.below(3)]),
        );
        NewDevice {
            name: format!("{}-{}-{:04}", site.slug, role.name, i + 1),
            site_slug: site.slug.clone(),
            role: role.name.to_owned(),
            device_type: role.device_type.to_owned(),
            platform: Some(role.platform.to_owned()),
            serial: format!("{}{:08}", role.serial_prefix, rng.below(100_000_000)),
            asset_tag: Some(format!("AT-{:04}-{:05}", seed % 10_000, i + 1)),
            status,
            rack: Some(format!("{row}{:02}", 1 + rng.below(24))),
            position: Some(1 + rng.below(40) as u16),
            face: Some("front".to_owned()),
            airflow: Some(role.airflow.to_owned()),
            comments,
            tags: vec![
                "prod".to_owned(),
                role.name.to_owned(),
                format!("row-{}", row.to_ascii_lowercase()),
            ],
            custom_fields,
        }
    })
}

/// SplitMix64: a tiny, well-mixed, seedable stream; not for secrets.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (the modulo bias is irrelevant at these sizes).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Db};

    #[test]
    fn is_deterministic_and_about_720_bytes_a_device() {
        let devices = new_devices(60, 1);
        assert_eq!(devices, new_devices(60, 1));
        assert_ne!(devices, new_devices(60, 2));
        let db = Db::open(None).unwrap();
        let written = db
            .run_now(|conn| {
                db::ensure_sites(conn, new_sites())?;
                db::create_devices(conn, devices)
            })
            .unwrap();
        let bytes = serde_json::to_vec(&written).unwrap().len();
        let each = bytes / written.len();
        assert!((650..=800).contains(&each), "{each} bytes a device");
    }
}
