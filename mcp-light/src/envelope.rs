//! STUB
/// Byte length of the compact JSON of `value`.
pub fn data_size<T: serde::Serialize + ?Sized>(value: &T) -> usize { serde_json::to_vec(value).map(|v| v.len()).unwrap_or(0) }
