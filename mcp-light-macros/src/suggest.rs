//! "Did you mean ...?" for misspelled names.

/// The candidate closest to `written`, if one is close enough to be a typo.
pub fn closest<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let budget = (written.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(written, candidate), candidate))
        .filter(|&(distance, _)| distance <= budget)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_typo_and_ignores_strangers() {
        assert_eq!(
            closest("resorce", ["name", "resource", "action"]),
            Some("resource")
        );
        assert_eq!(closest("colour", ["name", "resource"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
