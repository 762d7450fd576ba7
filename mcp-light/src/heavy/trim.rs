//! A summary cut to what the calling client keeps: the values it counts
//! per field are listed fewer at a time, the most frequent kept, until the
//! summary fits. Nothing is merged or dropped from the counts: the items
//! holding a value no longer listed are counted in the field's `other`,
//! and `distinct` still says how many values there are.

use serde_json::{Map, Value};

use super::NegotiationError;
use super::page::{WRAPPING, size_of};

/// How many values a field lists at each step, until the summary fits.
const STEPS: [usize; 4] = [10, 5, 2, 0];

/// `summary` as it fits `keeps` bytes: whole when it does, else with
/// fewer values listed per field and a `note` saying so; an error when
/// not even its fields fit.
pub(crate) fn fit_summary(summary: Value, keeps: usize) -> Result<Value, NegotiationError> {
    let room = keeps.saturating_sub(WRAPPING);
    let size = size_of(&summary);
    if size <= room {
        return Ok(summary);
    }
    // Room for the note itself.
    let room = room.saturating_sub(200);
    for listed in STEPS {
        let mut trimmed = summary.clone();
        trim(&mut trimmed, listed);
        if size_of(&trimmed) <= room {
            if let Value::Object(map) = &mut trimmed {
                map.insert(
                    "note".to_owned(),
                    Value::String(format!(
                        "each field lists at most its {listed} most frequent values, so that \
                         the summary fits what this client keeps ({keeps} bytes); `other` \
                         counts the items holding the rest"
                    )),
                );
            }
            return Ok(trimmed);
        }
    }
    Err(NegotiationError::SummaryTooLarge { size, keeps })
}

/// Lists at most `listed` values in every field summary inside `value`.
fn trim(value: &mut Value, listed: usize) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(values)) = map.get("values")
                && values.len() > listed
                && map.contains_key("nulls")
            {
                cut_values(map, listed);
            }
            for child in map.values_mut() {
                trim(child, listed);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| trim(item, listed)),
        _ => {}
    }
}

/// Keeps the first `listed` of a field summary's `values` (the most
/// frequent: they are listed so), counting the items of the rest in
/// `other` and the values there are in `distinct`.
fn cut_values(field: &mut Map<String, Value>, listed: usize) {
    let Some(Value::Object(values)) = field.shift_remove("values") else {
        return;
    };
    let all = values.len();
    let mut kept = Map::new();
    let mut moved = 0;
    for (index, (value, count)) in values.into_iter().enumerate() {
        if index < listed {
            kept.insert(value, count);
        } else {
            moved += count.as_u64().unwrap_or(0);
        }
    }
    let other = field.get("other").and_then(Value::as_u64).unwrap_or(0) + moved;
    if !field.contains_key("distinct") && !field.contains_key("distinct_at_least") {
        field.insert("distinct".to_owned(), Value::from(all));
    }
    if !kept.is_empty() {
        field.insert("values".to_owned(), Value::Object(kept));
    }
    field.insert("other".to_owned(), Value::from(other));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn wide_summary() -> Value {
        let values: Map<String, Value> = (0..20)
            .map(|i| (format!("a-fairly-long-value-number-{i:02}"), json!(100 - i)))
            .collect();
        let fields: Map<String, Value> = (0..30)
            .map(|f| {
                (
                    format!("field_{f}"),
                    json!({"type": "string", "nulls": 0, "values": values, "other": 5, "distinct": 25}),
                )
            })
            .collect();
        json!({"type": "list", "count": 2000, "fields": fields})
    }

    #[test]
    fn a_summary_that_fits_is_left_whole() {
        let summary = json!({"type": "list", "count": 3, "fields": {}});
        assert_eq!(fit_summary(summary.clone(), 10_000).unwrap(), summary);
    }

    #[test]
    fn a_wide_summary_lists_fewer_values_and_counts_the_rest_in_other() {
        let summary = wide_summary();
        assert!(size_of(&summary) > 10_000);
        let fitted = fit_summary(summary, 10_000).unwrap();
        assert!(
            size_of(&fitted) <= 10_000 - WRAPPING,
            "{}",
            size_of(&fitted)
        );
        let field = &fitted["fields"]["field_0"];
        let listed = field["values"].as_object().map_or(0, Map::len);
        assert!(listed < 20);
        // Every item is still counted: listed values plus `other`.
        let listed_items: u64 = field["values"].as_object().map_or(0, |values| {
            values.values().map(|n| n.as_u64().unwrap()).sum()
        });
        let all_items: u64 = (0..20).map(|i| 100 - i).sum::<u64>() + 5;
        assert_eq!(listed_items + field["other"].as_u64().unwrap(), all_items);
        assert_eq!(field["distinct"], 25);
        assert!(fitted["note"].as_str().unwrap().contains("10000 bytes"));
    }

    #[test]
    fn a_summary_whose_fields_alone_do_not_fit_is_refused() {
        let error = fit_summary(wide_summary(), 2_048).unwrap_err();
        assert!(error.to_string().contains("2048 bytes"), "{error}");
    }
}
