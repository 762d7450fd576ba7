//! The disclosure gate: which of the three outcomes a write takes.

/// What a write answers, decided from the published schema and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteOutcome {
    /// Outcome 1: the schema the caller called discloses continuation and a
    /// store took the full result — the envelope carries
    /// `continuation_token`.
    Continuation,
    /// Outcome 2: no token may be minted, but the envelope still reaches what
    /// was written (every identifier present and a retrieve tool published)
    /// — the same envelope, without the token; nothing is stored.
    Tokenless,
    /// Outcome 3: neither — the full result is returned. Never a partial
    /// `ids` list.
    Full,
}

impl WriteOutcome {
    /// Decides the outcome.
    ///
    /// `can_mint` is true when the published schema of the tool the caller
    /// called (the outer tool, for a dispatcher) discloses continuation *and*
    /// a store is available; after a store refuses the result, decide again
    /// with `false`: never an envelope advertising a token that was not
    /// stored. `reachable` is true when every identifier is present and a
    /// retrieve tool for the resource is published.
    pub(crate) const fn decide(can_mint: bool, reachable: bool) -> WriteOutcome {
        match (can_mint, reachable) {
            (true, _) => WriteOutcome::Continuation,
            (false, true) => WriteOutcome::Tokenless,
            (false, false) => WriteOutcome::Full,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WriteOutcome;

    #[test]
    fn a_token_wins_then_reach_then_the_full_result() {
        assert_eq!(
            WriteOutcome::decide(true, false),
            WriteOutcome::Continuation
        );
        assert_eq!(WriteOutcome::decide(true, true), WriteOutcome::Continuation);
        assert_eq!(WriteOutcome::decide(false, true), WriteOutcome::Tokenless);
        assert_eq!(WriteOutcome::decide(false, false), WriteOutcome::Full);
    }
}
