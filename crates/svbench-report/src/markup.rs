//! Escaping of text placed in the report's markup: `report.html`, the SVG
//! plots and Markdown table cells. One place, so every writer escapes the
//! same characters the same way.

/// The markup a text is escaped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// HTML text and attribute values (`report.html`).
    Html,
    /// XML character data and attribute values (the SVG plots). Characters
    /// XML 1.0 forbids become U+FFFD.
    Svg,
}

impl Markup {
    /// `s` with `&`, `<`, `>` and both quotes escaped (and, for SVG, the
    /// control characters XML forbids replaced).
    pub fn escape(self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str(match self {
                    Markup::Html => "&#39;",
                    Markup::Svg => "&apos;",
                }),
                c if self == Markup::Svg
                    && (c as u32) < 0x20
                    && !matches!(c, '\t' | '\n' | '\r') =>
                {
                    out.push('\u{fffd}')
                }
                c => out.push(c),
            }
        }
        out
    }
}

/// Free text kept on one Markdown line (a table cell, a list item): `|`
/// escaped, newlines folded to spaces.
pub fn table_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_svg_differ_only_in_apostrophes_and_controls() {
        let text = "a<b & \"c\" > 'd'\u{1}\t\n";
        assert_eq!(
            Markup::Html.escape(text),
            "a&lt;b &amp; &quot;c&quot; &gt; &#39;d&#39;\u{1}\t\n"
        );
        assert_eq!(
            Markup::Svg.escape(text),
            "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;\u{fffd}\t\n"
        );
        assert_eq!(Markup::Html.escape("plain é"), "plain é");
    }

    #[test]
    fn table_cells_stay_in_their_column() {
        assert_eq!(table_cell("a|b\nc"), "a\\|b c");
    }
}
