//! Which tools a server publishes: every tool, only its dispatchers, or
//! both. Every caller pays for `tools/list` in every conversation, so a host
//! can publish one dispatcher per group and let the agent ask for an
//! action's parameters when it needs them.

use std::fmt;
use std::str::FromStr;

/// What `tools/list` publishes, and so what a caller may call.
///
/// A tool a server does not publish is not served either: a caller could
/// not have seen its schema. Calling a tool that is reached through a
/// dispatcher instead answers an error that says how to reach it.
///
/// ```
/// use mcp_light::catalog::Surface;
///
/// assert_eq!("dispatcher".parse::<Surface>(), Ok(Surface::Dispatcher));
/// assert_eq!(Surface::default(), Surface::Both);
/// assert_eq!(Surface::Flat.to_string(), "flat");
/// assert!("everything".parse::<Surface>().unwrap_err().to_string().contains("flat, dispatcher or both"));
/// ```
///
/// `#[non_exhaustive]`: a later version may publish in another way, so a
/// `match` on a server's [`surface`](crate::Server::surface) keeps a
/// wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Surface {
    /// Every registered tool; the dispatchers are neither published nor
    /// served.
    Flat,
    /// The dispatchers, and only the registered tools no dispatcher reaches
    /// (a tool without a resource and an action would be unreachable
    /// otherwise). An agent asks a dispatcher for one action's parameters
    /// with `describe: true`.
    Dispatcher,
    /// Every registered tool and every dispatcher. The default.
    #[default]
    Both,
}

impl Surface {
    /// Every surface, in the order `as_str` names them.
    pub const ALL: [Surface; 3] = [Surface::Flat, Surface::Dispatcher, Surface::Both];

    /// The surface's name: `flat`, `dispatcher` or `both`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Surface::Flat => "flat",
            Surface::Dispatcher => "dispatcher",
            Surface::Both => "both",
        }
    }

    /// Whether the dispatchers are published.
    pub(crate) const fn publishes_dispatchers(self) -> bool {
        !matches!(self, Surface::Flat)
    }

    /// Whether the registered tools a dispatcher reaches are published too
    /// (those no dispatcher reaches always are).
    pub(crate) const fn publishes_routed_tools(self) -> bool {
        !matches!(self, Surface::Dispatcher)
    }
}

impl fmt::Display for Surface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Surface`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown surface `{0}`: use flat, dispatcher or both")]
pub struct UnknownSurface(String);

impl FromStr for Surface {
    type Err = UnknownSurface;

    fn from_str(name: &str) -> Result<Surface, UnknownSurface> {
        Surface::ALL
            .into_iter()
            .find(|surface| surface.as_str() == name)
            .ok_or_else(|| UnknownSurface(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_surface_reads_back_its_own_name() {
        for surface in Surface::ALL {
            assert_eq!(surface.as_str().parse::<Surface>(), Ok(surface));
        }
        assert_eq!(
            "Flat".parse::<Surface>().unwrap_err().to_string(),
            "unknown surface `Flat`: use flat, dispatcher or both"
        );
    }

    #[test]
    fn only_the_dispatcher_surface_hides_the_tools_a_dispatcher_reaches() {
        assert!(Surface::Flat.publishes_routed_tools());
        assert!(Surface::Both.publishes_routed_tools());
        assert!(!Surface::Dispatcher.publishes_routed_tools());
        assert!(!Surface::Flat.publishes_dispatchers());
        assert!(
            Surface::Dispatcher.publishes_dispatchers() && Surface::Both.publishes_dispatchers()
        );
    }
}
