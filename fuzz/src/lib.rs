//! What the fuzz targets share: one runtime, the inventory on its
//! in-memory database, JSON built from fuzz input, and the checks every
//! answer must pass.
//!
//! A target panics on a broken property; libFuzzer's panic hook turns
//! that (and any panic the runtime would catch and answer as an error)
//! into a crash with the input saved.

pub mod answer;
pub mod inventory_env;
pub mod json;
pub mod rpc;

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::runtime::Runtime;

/// How long one input may hold the target: a bound on every call, the
/// property "no input holds a thread past a bound". libFuzzer's own
/// `-timeout` is the backstop; this one names the input's stage.
pub const BOUND: Duration = Duration::from_secs(10);

/// The runtime every target runs on: one thread, the blocking pool
/// beside it, as a small server has.
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

/// Runs `work` to its end on [`runtime`], within [`BOUND`].
pub fn run_bounded<F: Future>(what: &str, work: F) -> F::Output {
    runtime().block_on(async {
        match tokio::time::timeout(BOUND, work).await {
            Ok(output) => output,
            Err(_) => panic!("{what} did not finish within {BOUND:?}"),
        }
    })
}

/// A fuzz input in one of its two forms, told apart by its first byte:
/// even, the rest is text as a test writes it (every seed of the corpus
/// starts with `R`); odd, the rest is read by `arbitrary` into the
/// target's structure.
pub enum Form<'a, T> {
    Raw(&'a [u8]),
    Built(T),
}

/// Reads `data` as a [`Form`]; `None` for an empty input or one
/// `arbitrary` cannot read.
pub fn form<'a, T: arbitrary::Arbitrary<'a>>(data: &'a [u8]) -> Option<Form<'a, T>> {
    let (&first, rest) = data.split_first()?;
    if first % 2 == 0 {
        Some(Form::Raw(rest))
    } else {
        T::arbitrary_take_rest(arbitrary::Unstructured::new(rest))
            .ok()
            .map(Form::Built)
    }
}

/// A raw input's first line and the rest: a tool's name and its
/// arguments, a macro and its tokens.
pub fn first_line(raw: &[u8]) -> (String, &[u8]) {
    let end = raw.iter().position(|b| *b == b'\n').unwrap_or(raw.len());
    let rest = raw.get(end + 1..).unwrap_or_default();
    (String::from_utf8_lossy(&raw[..end]).into_owned(), rest)
}
