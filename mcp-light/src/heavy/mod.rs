//! Heavy reads: the probe a first call answers and the modes
//! a continuation is served in.
//!
//! A tool marked `#[mcp_heavy]` does not answer its result. Its first call
//! answers a probe, `{preview, total_size, available_modes,
//! continuation_token, usage}`, and keeps the result in the continuation
//! store: the preview is the result cut short as real JSON (at most
//! [`HeavyConfig::preview_chars`] characters), `available_modes` lists the
//! modes (`summary`, `paginated`, `filtered`, `full`) that do something
//! useful with this value, and `usage` is one or two sentences on how to
//! call again. A call that sends the token back is served from the store in
//! the mode it asks for, without running the tool again; a wrong `mode`,
//! `page`, `page_size` or `filter_keys` is answered as an error that says
//! what to send instead. The tool's schema gains those five fields with
//! their types and bounds and almost no prose, because every caller pays
//! for `tools/list`; the instructions travel in the probe's `usage`
//! sentence instead, on the calls that need them. [`HeavyConfig`] sets the
//! inline budget, the page sizes, the preview length, the size backstop and
//! how many `filter_keys` a call may name.
//!
//! A result whose compact JSON is at most the inline budget
//! ([`HeavyConfig::inline_budget`], or the tool's own `inline = N`) is
//! cheaper whole than a probe and the page an agent reads after it: such a
//! first call answers the result itself, in one call, and keeps nothing.
//!
//! Storing the result, minting the token and checking the owner happen
//! elsewhere; this module decides what the agent reads.
//!
//! # Paging
//!
//! A value is *pageable* when it is a list, or an object with a list field
//! (a "wrapper" such as `{"count": 93, "results": [...]}`; of a read's several
//! list fields, the one with the most items pages, the first of equals, and
//! the probe names it as `paged`), and it
//! was not produced by a single write ([`Origin::SingleWrite`](crate::store::Origin::SingleWrite): one device
//! with a `tags` list is one object, not a page of tags). A page is
//! `{items, page, page_size, total, has_more}`; a wrapper keeps its other
//! fields, in their order, before those five (or, when one of them is named
//! like a page field, the page object sits under the list's own key, so
//! nothing is overwritten). A page past the end is empty
//! with `has_more: false` rather than an error: `total` and `page_size` are
//! beside it, so the agent can see where the end was, and an empty list's
//! page 1 needs no special case.

// Adding a mode: a mode is defined in this module and nowhere else. Add its variant to
// `Mode` and to `Mode::ALL` (`mode.rs`, in the order the schema lists
// it), and the compiler stops at every match that must handle it: its
// name and the shape its answer is counted under (`mode.rs`, with a new
// `ServedMode` in `call/outcome/mod.rs` if that shape is new), whether it
// takes `filter_keys`, when a probe offers it (`probe.rs`), how it serves a
// value (`serve`, in `mod.rs`) and which reads of the store it makes
// (`stored.rs`, which the continuation's redemption calls). The schema's
// enum, the parsing of `mode` and its error, and the viewer's tools take
// its name from `Mode`. Then name it where this documentation lists the
// modes, describe it in `serve`'s documentation and in the heavy-reads
// guide (`docs/heavy-reads.md`), and test it beside the others.
//
// One concern a file: `mode` names the modes, `negotiation` reads and
// publishes the fields, `probe` (cut by `preview`) answers a first call,
// and `serve` here answers a redemption of a `serde_json::Value` through
// `page`, `summary` and `filter`; `stored` serves a redemption from the
// store, reading only what the mode needs.

mod json;
pub(crate) use json::{ELLIPSIS, kind, to_json};
mod config;
pub use config::HeavyConfig;
mod digest;
mod filter;
mod mode;
mod negotiation;
mod observe;
mod page;
mod preview;
mod probe;
mod serve;
mod stored;
mod summarize;
mod summary;
#[cfg(test)]
mod test_support;
mod trim;

pub(crate) use digest::{Digest, ListDigest, ResultShape, preview_of};
pub(crate) use filter::check_list_keys;
pub(crate) use mode::Mode;
pub(crate) use negotiation::NegotiationError;
pub(crate) use negotiation::{
    NEGOTIATION_FIELDS, Negotiation, negotiation_properties, refuse_negotiation, take_negotiation,
};
pub(crate) use page::{
    Page, WRAPPING, fit, fitting_page_size, items_room, narrow_item, page_range,
};
pub(crate) use probe::{Probe, probe, unkept_probe};
pub(crate) use serve::serve;
pub(crate) use stored::{Served, StoredResult, serve_body, serve_from_store};
pub(crate) use summary::Summary;
pub use summary::{MAX_FIELD_NAMES, MAX_FIELDS, MAX_STRING_CHARS, MAX_TRACKED_VALUES, MAX_VALUES};
pub(crate) use trim::fit_summary;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::Origin;
    use test_support::{asked, config, rows};

    // --- full ---

    #[test]
    fn full_returns_exactly_the_input() {
        for value in [
            rows(300),
            json!({"site": "hq", "devices": rows(30)}),
            json!("x"),
            json!({"b": 1, "a": [1, 2]}),
        ] {
            for origin in [Origin::Read, Origin::SingleWrite, Origin::BulkWrite] {
                let served =
                    serve(value.clone(), origin, &asked(Mode::Full, 1, 20), &config()).unwrap();
                assert_eq!(served.to_string(), value.to_string());
            }
        }
    }

    #[test]
    fn backstop_threshold() {
        assert!(!config().over_backstop(25_000));
        assert!(config().over_backstop(25_001));
        assert!(
            !HeavyConfig {
                size_backstop: None,
                ..config()
            }
            .over_backstop(usize::MAX)
        );
    }

    #[test]
    fn serve_pages_a_wrapper_after_its_siblings_but_never_a_single_write() {
        let config = HeavyConfig::default();
        let value = json!({
            "site": "hq",
            "devices": (1..=45).map(|id| json!({"id": id})).collect::<Vec<_>>(),
        });

        let mut negotiation = Negotiation::with_mode(Mode::Paginated, &config);
        negotiation.page = 3;
        negotiation.page_size = 20;
        negotiation.page_size_asked = true;
        let page = serve(value.clone(), Origin::Read, &negotiation, &config).unwrap();
        assert_eq!(
            page.to_string(),
            r#"{"site":"hq","items":[{"id":41},{"id":42},{"id":43},{"id":44},{"id":45}],"page":3,"page_size":20,"total":45,"has_more":false}"#
        );

        // One written object is never paged, whatever lists it holds.
        let whole = serve(value.clone(), Origin::SingleWrite, &negotiation, &config).unwrap();
        assert_eq!(whole, value);
    }
}
