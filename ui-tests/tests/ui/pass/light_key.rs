//! `#[derive(LightKey)]`: serialized names, priority order, skipped and
//! optional fields, an explicit id.
use mcp_light::prelude::*;
use serde_json::{Value, json};

fn key_of(value: &impl LightKey) -> String {
    let mut key = KeyFields::new();
    value.light_key(&mut key);
    Value::Object(key.into_map()).to_string()
}

#[derive(Serialize, LightKey)]
#[serde(rename_all = "camelCase")]
#[light_key(role, site_slug, rackUnit)]
struct Device {
    #[serde(skip_serializing_if = "Option::is_none")]
    rack_unit: Option<u8>,
    role: String,
    site_slug: String,
    #[serde(rename = "displayName")]
    display: String,
    url: String,
    #[serde(rename = "pk")]
    key: String,
    #[serde(skip)]
    #[expect(dead_code, reason = "serde skips it, so no envelope can name it")]
    secret: String,
}

#[derive(Serialize, LightKey)]
#[serde(rename_all(serialize = "SCREAMING-KEBAB-CASE"))]
#[light_key(id = serial_number, asset_tag)]
struct Part {
    id: u32,
    serial_number: String,
    asset_tag: String,
    display: String,
}

#[derive(Serialize, LightKey)]
#[light_key(pk)]
struct Both {
    #[serde(skip_serializing)]
    #[expect(dead_code, reason = "serde skips it, so the key is `pk`")]
    id: u32,
    pk: Option<u32>,
    name: &'static str,
}

#[derive(Serialize, LightKey)]
struct Note {
    text: String,
}

#[derive(Serialize, LightKey)]
#[light_key(id = id, label)]
struct Tagged<T> {
    id: T,
    label: T,
    #[serde(rename(serialize = "name", deserialize = "nom"))]
    title: String,
}

fn main() {
    let device = Device {
        rack_unit: None,
        role: "edge".into(),
        site_slug: "hq".into(),
        display: "Edge 01".into(),
        url: "/devices/7".into(),
        key: "d-7".into(),
        secret: "s".into(),
    };
    // pk first, then url; `display` is renamed away, so no name field.
    assert_eq!(
        key_of(&device),
        r#"{"pk":"d-7","url":"/devices/7","role":"edge","siteSlug":"hq"}"#
    );
    assert_eq!(device.light_id(), Some(json!("d-7")));
    let racked = Device {
        rack_unit: Some(12),
        secret: String::new(),
        ..device
    };
    assert_eq!(
        key_of(&racked),
        r#"{"pk":"d-7","url":"/devices/7","role":"edge","siteSlug":"hq","rackUnit":12}"#
    );

    let part = Part {
        id: 1,
        serial_number: "SN1".into(),
        asset_tag: "A-9".into(),
        display: "p".into(),
    };
    // `display` became `DISPLAY`, so it is not the conventional name field.
    assert_eq!(
        key_of(&part),
        r#"{"SERIAL-NUMBER":"SN1","ASSET-TAG":"A-9"}"#
    );
    assert_eq!(part.light_id(), Some(json!("SN1")));

    let both = Both {
        id: 3,
        pk: None,
        name: "n",
    };
    assert_eq!(key_of(&both), r#"{"name":"n"}"#);
    assert_eq!(both.light_id(), None);
    let both = Both {
        id: 3,
        pk: Some(4),
        name: "n",
    };
    assert_eq!(key_of(&both), r#"{"pk":4,"name":"n"}"#);

    let note = Note { text: "t".into() };
    assert_eq!(key_of(&note), "{}");
    assert_eq!(note.light_id(), None);

    let tagged = Tagged {
        id: 5u8,
        label: 6u8,
        title: "T".into(),
    };
    assert_eq!(key_of(&tagged), r#"{"id":5,"name":"T","label":6}"#);
    assert_eq!(tagged.light_id(), Some(json!(5)));
}
