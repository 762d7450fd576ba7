//! Writes and what they answer: the lean confirmation envelope a write
//! answers instead of an echo of what it was sent, and the fields that
//! identify an object in it. Which of the three outcomes a write takes is
//! decided with its answer (`call/outcome/write.rs`).
//!
//! - `envelope`: the envelopes: id, url, name, status code and data size
//!   of one object, or accepted and ids of a bulk write.
//! - `light_key`: [`LightKey`](light_key::LightKey), `KeyFields` and
//!   `BulkResult`: which fields identify an object.

pub(crate) mod envelope;
pub(crate) mod light_key;
