//! serde's `rename_all` rules, applied to field names as serde applies them.

#[derive(Copy, Clone)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// The rule serde reads from `rename_all = "..."`; `None` for a value
    /// serde rejects (serde_derive reports it).
    pub fn from_str(rule: &str) -> Option<RenameRule> {
        Some(match rule {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// A snake_case field name under this rule.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::{self, *};

    #[test]
    fn matches_serde_for_every_rule() {
        let cases: [(RenameRule, &str); 8] = [
            (Lower, "site_slug"),
            (Upper, "SITE_SLUG"),
            (Pascal, "SiteSlug"),
            (Camel, "siteSlug"),
            (Snake, "site_slug"),
            (ScreamingSnake, "SITE_SLUG"),
            (Kebab, "site-slug"),
            (ScreamingKebab, "SITE-SLUG"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_field("site_slug"), expected);
        }
    }
}
