//! What an audit found: one [`Finding`] per check, each passed, a warning
//! or an error, gathered in an [`Audit`]. These types depend on nothing
//! else of the runtime, so a store (`ContinuationStore::audit`) and an
//! application's own checks build them too.

use std::borrow::Cow;
use std::fmt;

/// The check of how MCP is served: stdio, or HTTP on which address and
/// with which authentication.
pub const TRANSPORT: &str = "transport";
/// The check that the OAuth issuer answers its metadata.
pub const OAUTH_ISSUER: &str = "oauth issuer";
/// The check that the OAuth issuer's keys (its JWKS) can be fetched.
pub const OAUTH_KEYS: &str = "oauth keys";
/// The check of where continuation results are kept, and that the store
/// answers.
pub const STORE: &str = "store";
/// The check that the store keeps its entries across its own restart.
pub const STORE_PERSISTENCE: &str = "store persistence";
/// The check that the store keeps each entry for its whole TTL.
pub const STORE_EVICTION: &str = "store eviction";
/// The check of what output schemas cost `tools/list`.
pub const OUTPUT_SCHEMAS: &str = "output schemas";

/// How a check came out.
///
/// Ordered from the best to the worst, so the worst of a report is its
/// maximum ([`Audit::worst`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The check passed: the setting works as a deployment needs. Printed
    /// `✓`.
    Pass,
    /// The configuration works but puts something at risk: tokens lost at
    /// a restart, tokens one replica cannot redeem, tokens spent on every
    /// `tools/list`. Printed `⚠`.
    Warning,
    /// The configuration cannot work as deployed, or exposes every tool:
    /// a store or an issuer that does not answer, HTTP open to the network
    /// without authentication. Printed `✗`; a program that checks its
    /// configuration before serving exits non-zero on one.
    Error,
}

impl Severity {
    /// The mark a report line starts with: `✓`, `⚠` or `✗`.
    ///
    /// ```
    /// use mcp_light::audit::Severity;
    ///
    /// assert_eq!(Severity::Pass.mark(), '✓');
    /// assert_eq!(Severity::Warning.mark(), '⚠');
    /// assert_eq!(Severity::Error.mark(), '✗');
    /// ```
    pub fn mark(self) -> char {
        match self {
            Severity::Pass => '✓',
            Severity::Warning => '⚠',
            Severity::Error => '✗',
        }
    }
}

/// One check's outcome: how it came out, which check, and a sentence that
/// names the setting and, for a warning or an error, the fix.
///
/// `#[non_exhaustive]`: build one with [`Finding::pass`],
/// [`Finding::warning`] or [`Finding::error`]. An application adds its own
/// checks (its database, its disk) to a server's report with them
/// ([`Audit::push`]). Its [`Display`](fmt::Display) is one report line:
/// the mark, the check, the message.
///
/// ```
/// use mcp_light::audit::{Finding, Severity};
///
/// let finding = Finding::error("database", "the database at db.internal:5432 does not answer");
/// assert_eq!(finding.severity, Severity::Error);
/// assert_eq!(
///     finding.to_string(),
///     "✗ database: the database at db.internal:5432 does not answer"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Passed, warning or error.
    pub severity: Severity,
    /// The check, in a word or two (`transport`, `store`, `eviction`): the
    /// same for every outcome of one check, so a program can pick a
    /// finding out of a report, or add a word of its own to its message.
    pub check: Cow<'static, str>,
    /// What was found, in a sentence naming the setting; for a warning or
    /// an error, what to change.
    pub message: String,
}

impl Finding {
    /// A finding of `severity`.
    pub fn new(
        severity: Severity,
        check: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            severity,
            check: check.into(),
            message: message.into(),
        }
    }

    /// A check that passed.
    pub fn pass(check: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Pass, check, message)
    }

    /// A check that found a risk in a configuration that works.
    pub fn warning(check: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Warning, check, message)
    }

    /// A check that found a configuration that cannot work as deployed.
    pub fn error(check: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Error, check, message)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.severity.mark(),
            self.check,
            self.message
        )
    }
}

/// A configuration audit: one [`Finding`] per check, in the order they
/// ran, passed ones included, so a report shows what was looked at.
///
/// [`Server::audit`](crate::Server::audit) makes one; an application adds
/// its own checks with [`push`](Audit::push) (or [`Extend`]). Its
/// [`Display`](fmt::Display) prints a line per check, `✓`, `⚠` or `✗`
/// first. [`findings`](Audit::findings) are the warnings and errors alone:
/// a configuration with none is clean.
///
/// ```
/// use mcp_light::audit::{Audit, Finding, Severity};
///
/// let mut audit = Audit::new();
/// audit.push(Finding::pass("database", "the database answers"));
/// audit.push(Finding::warning("disk", "the database is on nfs4"));
/// assert_eq!(audit.findings().count(), 1);
/// assert_eq!(audit.worst(), Severity::Warning);
/// assert!(!audit.has_errors());
/// assert_eq!(
///     audit.to_string(),
///     "✓ database: the database answers\n⚠ disk: the database is on nfs4\n"
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    checks: Vec<Finding>,
}

impl Audit {
    /// A report with no check yet.
    pub fn new() -> Audit {
        Audit::default()
    }

    /// Adds `finding` after the checks already reported.
    pub fn push(&mut self, finding: Finding) {
        self.checks.push(finding);
    }

    /// Every check, passed ones included, in order.
    pub fn checks(&self) -> &[Finding] {
        &self.checks
    }

    /// The warnings and errors, in order: what an operator should read.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.checks
            .iter()
            .filter(|finding| finding.severity != Severity::Pass)
    }

    /// Whether any check found an error: a program that checks its
    /// configuration before serving exits non-zero then.
    pub fn has_errors(&self) -> bool {
        self.worst() == Severity::Error
    }

    /// The worst outcome of any check; [`Severity::Pass`] for a report
    /// with none.
    pub fn worst(&self) -> Severity {
        self.checks
            .iter()
            .map(|finding| finding.severity)
            .max()
            .unwrap_or(Severity::Pass)
    }

    /// The finding of `check`, the first if several have its name.
    pub fn get(&self, check: &str) -> Option<&Finding> {
        self.checks.iter().find(|finding| finding.check == check)
    }
}

impl fmt::Display for Audit {
    /// One line per check, each ending in a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for finding in &self.checks {
            writeln!(f, "{finding}")?;
        }
        Ok(())
    }
}

impl Extend<Finding> for Audit {
    fn extend<I: IntoIterator<Item = Finding>>(&mut self, findings: I) {
        self.checks.extend(findings);
    }
}

impl FromIterator<Finding> for Audit {
    fn from_iter<I: IntoIterator<Item = Finding>>(findings: I) -> Audit {
        Audit {
            checks: findings.into_iter().collect(),
        }
    }
}

impl IntoIterator for Audit {
    type Item = Finding;
    type IntoIter = std::vec::IntoIter<Finding>;

    fn into_iter(self) -> Self::IntoIter {
        self.checks.into_iter()
    }
}

impl<'a> IntoIterator for &'a Audit {
    type Item = &'a Finding;
    type IntoIter = std::slice::Iter<'a, Finding>;

    fn into_iter(self) -> Self::IntoIter {
        self.checks.iter()
    }
}
