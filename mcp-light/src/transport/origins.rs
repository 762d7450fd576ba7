//! The `Origin` check of the Streamable HTTP service, made in front of rmcp
//! by mcp-light's guard, with the allowed origins parsed once when the
//! service is built.
//!
//! rmcp checks a request's `Origin` against its configuration's
//! `allowed_origins` itself, but it clones that configuration, origins and
//! all, for every request it serves and parses each allowed origin again
//! for every request that carries one. The guard takes the list over
//! instead ([`AllowedOrigins::take`]) and answers exactly as rmcp would: a
//! request without `Origin` passes; one whose `Origin` is not valid UTF-8,
//! not an origin, or not allowed is refused `403 Forbidden`, before
//! anything else reads it.
//!
//! An allowed origin is `scheme://host`, `scheme://host:port`,
//! `scheme://host:*` (any port) or `null` (a sandboxed page). One without a
//! port matches any port, as rmcp's does, with the same warning at build.

use axum::http::{HeaderMap, Uri, header};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

/// The origins a browser request may come from, parsed.
#[derive(Debug, Clone)]
pub(crate) struct AllowedOrigins {
    allowed: Vec<Allowed>,
}

impl AllowedOrigins {
    /// Takes the allowed origins of `config` over: rmcp is left with none
    /// to check (and none to clone per request). `None` when `config` names
    /// no origin; rmcp then checks what its configuration says for that
    /// case (none at all, or, where it was asked to, every `Origin`
    /// refused).
    pub(crate) fn take(
        config: StreamableHttpServerConfig,
    ) -> (StreamableHttpServerConfig, Option<AllowedOrigins>) {
        if config.allowed_origins.is_empty() {
            return (config, None);
        }
        let allowed = config
            .allowed_origins
            .iter()
            .filter_map(|raw| {
                let allowed = Allowed::parse(raw)?;
                if let Allowed::Tuple {
                    port: AllowedPort::Unspecified,
                    ..
                } = allowed
                {
                    tracing::warn!(
                        allowed_origin = raw.as_str(),
                        "an allowed origin without a port matches any port; name the port, \
                         or `:*` for any"
                    );
                }
                Some(allowed)
            })
            .collect();
        (
            config.disable_allowed_origins(),
            Some(AllowedOrigins { allowed }),
        )
    }

    /// Why a request with `headers` is refused, in the words of its `403`
    /// answer; `None` when it may be served.
    pub(crate) fn refusal(&self, headers: &HeaderMap) -> Option<&'static str> {
        let origin = headers.get(header::ORIGIN)?;
        let Ok(origin) = origin.to_str() else {
            tracing::warn!(origin = ?origin, "refused a request whose Origin is not UTF-8");
            return Some("Forbidden: Invalid Origin header encoding");
        };
        let Some(parsed) = Origin::parse(origin) else {
            tracing::warn!(origin, "refused a request whose Origin is no origin");
            return Some("Forbidden: Invalid Origin header");
        };
        if self.allowed.iter().any(|allowed| allowed.matches(&parsed)) {
            return None;
        }
        tracing::warn!(
            origin,
            "refused a request from an Origin that is not allowed (a cross-origin page?)"
        );
        Some("Forbidden: Origin header is not allowed")
    }
}

/// A request's `Origin`: `null`, or its scheme, host and port, lowercased.
#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl Origin {
    fn parse(value: &str) -> Option<Origin> {
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        if value.eq_ignore_ascii_case("null") {
            return Some(Origin::Null);
        }
        let uri = Uri::try_from(value).ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        Some(Origin::Tuple {
            scheme,
            host: authority
                .host()
                .trim_matches(['[', ']'])
                .to_ascii_lowercase(),
            port: authority.port_u16(),
        })
    }
}

/// One allowed origin.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: AllowedPort,
    },
}

/// The port an allowed origin names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AllowedPort {
    /// `:*`.
    Any,
    /// None named: any port.
    Unspecified,
    Exact(u16),
}

impl Allowed {
    /// `value` as an allowed origin; `None` for one that is not an origin,
    /// which allows nothing.
    fn parse(value: &str) -> Option<Allowed> {
        let value = value.trim();
        if let Some(base) = value.strip_suffix(":*") {
            let Origin::Tuple {
                scheme,
                host,
                port: None,
            } = Origin::parse(base)?
            else {
                return None;
            };
            return Some(Allowed::Tuple {
                scheme,
                host,
                port: AllowedPort::Any,
            });
        }
        Some(match Origin::parse(value)? {
            Origin::Null => Allowed::Null,
            Origin::Tuple { scheme, host, port } => Allowed::Tuple {
                scheme,
                host,
                port: port.map_or(AllowedPort::Unspecified, AllowedPort::Exact),
            },
        })
    }

    fn matches(&self, origin: &Origin) -> bool {
        match (self, origin) {
            (Allowed::Null, Origin::Null) => true,
            (
                Allowed::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: their_scheme,
                    host: their_host,
                    port: their_port,
                },
            ) => {
                scheme == their_scheme
                    && host == their_host
                    && match port {
                        AllowedPort::Any | AllowedPort::Unspecified => true,
                        // An origin leaves its scheme's default port out.
                        AllowedPort::Exact(allowed) => {
                            their_port.or_else(|| default_port(their_scheme)) == Some(*allowed)
                        }
                    }
            }
            _ => false,
        }
    }
}

/// The port a scheme implies where an origin names none.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn allowed(origins: &[&str]) -> AllowedOrigins {
        let config = StreamableHttpServerConfig::default().with_allowed_origins(origins.to_vec());
        let (config, allowed) = AllowedOrigins::take(config);
        assert!(config.allowed_origins.is_empty(), "rmcp is left none");
        allowed.expect("origins were named")
    }

    fn refusal(allowed: &AllowedOrigins, origin: Option<&[u8]>) -> Option<&'static str> {
        let mut headers = HeaderMap::new();
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_bytes(origin).unwrap());
        }
        allowed.refusal(&headers)
    }

    #[test]
    fn a_config_naming_no_origin_is_left_to_rmcp() {
        let (config, allowed) = AllowedOrigins::take(StreamableHttpServerConfig::default());
        assert!(allowed.is_none());
        assert!(config.allowed_origins.is_empty());
    }

    #[test]
    fn origins_are_matched_by_scheme_host_and_port() {
        let origins = allowed(&[
            "http://localhost:*",
            "https://app.example.com:8443",
            "https://Docs.Example.com",
            "http://[::1]:*",
            "null",
        ]);
        for ok in [
            "http://localhost",
            "http://localhost:5173",
            "HTTP://LOCALHOST:1",
            "https://app.example.com:8443",
            "https://docs.example.com:9999",
            "http://[::1]:3000",
            "null",
        ] {
            assert_eq!(refusal(&origins, Some(ok.as_bytes())), None, "{ok}");
        }
        let refused = Some("Forbidden: Origin header is not allowed");
        for no in [
            "https://localhost:5173",
            "https://app.example.com",
            "https://app.example.com:443",
            "http://evil.example",
            "http://localhost.evil.example",
        ] {
            assert_eq!(refusal(&origins, Some(no.as_bytes())), refused, "{no}");
        }
    }

    #[test]
    fn an_explicit_port_matches_the_scheme_default() {
        let origins = allowed(&["https://app.example.com:443"]);
        assert_eq!(refusal(&origins, Some(b"https://app.example.com")), None);
        assert_eq!(
            refusal(&origins, Some(b"https://app.example.com:8443")),
            Some("Forbidden: Origin header is not allowed")
        );
    }

    #[test]
    fn a_request_without_origin_passes_and_a_malformed_one_is_refused() {
        let origins = allowed(&["http://localhost:*"]);
        assert_eq!(refusal(&origins, None), None);
        assert_eq!(
            refusal(&origins, Some(b"not an origin")),
            Some("Forbidden: Invalid Origin header")
        );
        assert_eq!(
            refusal(&origins, Some(b"http://localhost\xff")),
            Some("Forbidden: Invalid Origin header encoding")
        );
        // `null` is an origin only where it is allowed.
        assert_eq!(
            refusal(&origins, Some(b"null")),
            Some("Forbidden: Origin header is not allowed")
        );
    }

    #[test]
    fn entries_that_are_no_origin_allow_nothing_but_keep_the_check_on() {
        let origins = allowed(&["localhost", "*"]);
        assert_eq!(refusal(&origins, None), None);
        assert_eq!(
            refusal(&origins, Some(b"http://localhost")),
            Some("Forbidden: Origin header is not allowed")
        );
    }
}
