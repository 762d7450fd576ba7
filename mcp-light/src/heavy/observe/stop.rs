//! [`Stop`]: the one error an observer gives serde.

use std::fmt;

use serde::ser;

/// An observer never fails on its own: a serializer error comes from the
/// item's `Serialize` impl, and the item is then refused anyway.
#[derive(Debug)]
pub(crate) struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the item cannot be serialized")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}
