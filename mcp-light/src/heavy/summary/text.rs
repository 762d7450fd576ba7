//! The text a list of strings carries in lines: a kept plain-text answer
//! (a directory tree, a file, a log) is a list of pieces, each line with
//! its `\n`, a long line cut into several. Its summary counts lines and
//! bytes, shows the first lines, and counts how the lines begin.

use serde::Serialize;

use super::values::{ValueCounts, ValueSummary};

/// The lines [`TextSummary::head`] shows.
const HEAD_LINES: usize = 5;

/// The characters of a line [`TextSummary::head`] shows.
const HEAD_CHARS: usize = 120;

/// The characters of a line's first word [`TextSummary::starts`] counts.
const START_CHARS: usize = 24;

/// A list's string items read as text, one item at a time in bounded
/// memory: at most [`HEAD_LINES`] lines kept, the starts counted as a
/// field's values are.
#[derive(Debug, Default)]
pub(super) struct TextStats {
    /// Items that are strings.
    strings: usize,
    /// Of them, the ones that end a line.
    line_ends: usize,
    bytes: usize,
    /// Lines ended so far.
    lines: usize,
    blank_lines: usize,
    /// The bytes of the line being read, and of the longest.
    current: usize,
    longest: usize,
    head: Vec<String>,
    starts: ValueCounts,
}

/// `text` of a list summary: `{lines, bytes, longest_line, blank_lines,
/// head, starts}`.
#[derive(Debug, Serialize)]
pub(super) struct TextSummary {
    lines: usize,
    bytes: usize,
    /// The longest line's bytes, without its `\n`.
    longest_line: usize,
    blank_lines: usize,
    /// The first lines, each cut to [`HEAD_CHARS`] characters (`…`).
    head: Vec<String>,
    /// How many lines begin with each first word, its digits as `#`: what
    /// the lines look like (`[FILE]`, `[DIR]`; `####-##-##`).
    starts: ValueSummary,
}

impl TextStats {
    /// One string item of the list.
    pub(super) fn piece(&mut self, piece: &str) {
        self.strings += 1;
        self.bytes += piece.len();
        let starts_line = self.current == 0;
        let (line, ends) = match piece.strip_suffix('\n') {
            Some(line) => (line.strip_suffix('\r').unwrap_or(line), true),
            None => (piece, false),
        };
        if starts_line {
            self.begin_line(line);
        }
        self.current += line.len();
        if ends {
            self.line_ends += 1;
            self.end_line();
        }
    }

    fn begin_line(&mut self, line: &str) {
        if self.head.len() < HEAD_LINES {
            self.head.push(cut(line, HEAD_CHARS));
        }
        let word = line.split_whitespace().next().unwrap_or("");
        if !word.is_empty() {
            let masked: String = word
                .chars()
                .take(START_CHARS)
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect();
            self.starts.string(&masked);
        }
    }

    fn end_line(&mut self) {
        if self.current == 0 {
            self.blank_lines += 1;
        }
        self.lines += 1;
        self.longest = self.longest.max(self.current);
        self.current = 0;
    }

    /// The summary of the text, when the list of `count` items is text in
    /// lines: every item a string, and some ending a line.
    pub(super) fn render(&self, count: usize) -> Option<TextSummary> {
        if count == 0 || self.strings < count || self.line_ends == 0 {
            return None;
        }
        // A last line without its `\n` is a line too.
        let open = usize::from(self.current > 0);
        Some(TextSummary {
            lines: self.lines + open,
            bytes: self.bytes,
            longest_line: self.longest.max(self.current),
            blank_lines: self.blank_lines,
            head: self.head.clone(),
            starts: self.starts.render(),
        })
    }
}

/// `line` cut to `chars` characters, `…` marking the cut.
fn cut(line: &str, chars: usize) -> String {
    match line.char_indices().nth(chars) {
        None => line.to_owned(),
        Some((at, _)) => format!("{}{}", &line[..at], crate::heavy::ELLIPSIS),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn summary(pieces: &[&str]) -> Option<Value> {
        let mut stats = TextStats::default();
        for piece in pieces {
            stats.piece(piece);
        }
        stats
            .render(pieces.len())
            .map(|text| serde_json::to_value(text).unwrap())
    }

    #[test]
    fn lines_and_bytes_are_counted_and_a_cut_line_is_one_line() {
        let long = "x".repeat(1_500);
        let (first, rest) = long.split_at(1_000);
        let rest = format!("{rest}\n");
        let text = summary(&[
            "[DIR] src\n",
            first,
            &rest,
            "\n",
            "[FILE] a.rs\n",
            "[FILE] b.rs",
        ])
        .expect("text in lines");
        assert_eq!(text["lines"], 5);
        assert_eq!(text["bytes"], 10 + 1_500 + 1 + 1 + 12 + 11);
        assert_eq!(text["longest_line"], 1_500);
        assert_eq!(text["blank_lines"], 1);
        assert_eq!(text["head"][0], "[DIR] src");
        assert_eq!(text["head"][1], format!("{}…", "x".repeat(120)));
        assert_eq!(text["head"].as_array().unwrap().len(), 5);
        assert_eq!(
            text["starts"]["values"],
            json!({"[FILE]": 2, "[DIR]": 1, &"x".repeat(24): 1})
        );
    }

    #[test]
    fn a_lines_first_word_is_counted_with_its_digits_masked() {
        let log = [
            "2026-12-04 10:00:01 INFO up\n",
            "2026-12-04 10:00:02 WARN slow\n",
            "  indented ok\n",
        ];
        let text = summary(&log).unwrap();
        assert_eq!(
            text["starts"]["values"],
            json!({"####-##-##": 2, "indented": 1})
        );
    }

    #[test]
    fn a_list_that_is_not_text_in_lines_has_no_text_summary() {
        // Tags: strings, none ending a line.
        assert_eq!(summary(&["red", "blue"]), None);
        let mut mixed = TextStats::default();
        mixed.piece("a line\n");
        // Two items, one of them not a string.
        assert!(mixed.render(2).is_none());
        assert!(TextStats::default().render(0).is_none());
    }
}
