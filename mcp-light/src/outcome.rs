//! STUB
/// The three outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome { /// 1
 Continuation, /// 2
 Tokenless, /// 3
 Full }
