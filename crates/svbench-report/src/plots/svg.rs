//! A tiny SVG writer: the document frame, shapes and text, with escaping
//! and fixed number formatting so identical inputs give identical bytes.
//! Nothing here needs fonts: text uses the generic `sans-serif` family and
//! is laid out by the viewer.

use std::fmt::Write;

use crate::markup::Markup;

/// Default canvas width.
pub const WIDTH: f64 = 640.0;
/// Default canvas height.
pub const HEIGHT: f64 = 400.0;
/// Fill colours of data series, in order.
pub const PALETTE: [&str; 4] = ["#4c72b0", "#dd8452", "#55a868", "#8172b3"];
/// Axis and text colour.
pub const INK: &str = "#222222";
/// Grid and reference-line colour.
pub const GRID: &str = "#bbbbbb";

/// A coordinate with two decimals; non-finite values become 0 and `-0.00`
/// becomes `0.00`, so output never depends on the sign of a rounded zero.
pub fn num(v: f64) -> String {
    fixed(v, 2)
}

/// `v` with `decimals` decimals, normalising non-finite values and `-0`.
pub fn fixed(v: f64, decimals: usize) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.decimals$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// Horizontal text anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Text starts at x.
    Start,
    /// Text is centred on x.
    Middle,
    /// Text ends at x.
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An SVG document being written.
#[derive(Debug)]
pub struct Doc {
    out: String,
}

impl Doc {
    /// Starts a `width` × `height` document with a white background, an
    /// accessible `<title>` and the visible title at the top.
    pub fn new(width: f64, height: f64, title: &str) -> Self {
        let (w, h) = (num(width), num(height));
        let mut out = String::with_capacity(4096);
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{}</title>\n<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
            Markup::Svg.escape(title)
        );
        let mut doc = Doc { out };
        doc.text(width / 2.0, 22.0, title, Anchor::Middle, 15.0, INK);
        doc
    }

    /// A filled rectangle; negative sizes are drawn as empty.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.rect_with(x, y, w, h, fill, "");
    }

    /// A filled rectangle with extra raw attributes (already escaped).
    pub fn rect_with(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, extra: &str) {
        let _ = writeln!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"{extra}/>",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0))
        );
    }

    /// A straight line, optionally dashed.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, dashed: bool) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"1\"{}/>",
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            if dashed { " stroke-dasharray=\"4 3\"" } else { "" }
        );
    }

    /// An open polyline through `points` (pixel coordinates).
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        if points.is_empty() {
            return;
        }
        self.out.push_str("<polyline points=\"");
        for (i, (x, y)) in points.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            let _ = write!(self.out, "{},{}", num(*x), num(*y));
        }
        let _ = writeln!(
            self.out,
            "\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"2\"/>"
        );
    }

    /// A filled circle.
    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\"/>",
            num(cx),
            num(cy),
            num(r)
        );
    }

    /// Text at (x, y) (baseline), escaped.
    pub fn text(&mut self, x: f64, y: f64, s: &str, anchor: Anchor, size: f64, fill: &str) {
        let _ = writeln!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{fill}\">{}</text>",
            num(x),
            num(y),
            anchor.attr(),
            num(size),
            Markup::Svg.escape(s)
        );
    }

    /// Text rotated 90° counter-clockwise around (x, y) (y-axis labels).
    pub fn text_vertical(&mut self, x: f64, y: f64, s: &str) {
        let (x, y) = (num(x), num(y));
        let _ = writeln!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" font-size=\"12\" fill=\"{INK}\" transform=\"rotate(-90 {x} {y})\">{}</text>",
            Markup::Svg.escape(s)
        );
    }

    /// A legend row of coloured squares with labels, starting at (x, y).
    pub fn legend(&mut self, x: f64, y: f64, entries: &[(&str, &str)]) {
        let mut at = x;
        for (label, colour) in entries {
            self.rect(at, y - 10.0, 10.0, 10.0, colour);
            self.text(at + 14.0, y, label, Anchor::Start, 11.0, INK);
            at += 24.0 + 7.0 * label.chars().count() as f64;
        }
    }

    /// Closes the document; the result ends with `</svg>\n`.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// A complete document saying why a plot has nothing to show.
pub fn placeholder(title: &str, message: &str) -> String {
    let mut doc = Doc::new(WIDTH, 160.0, title);
    doc.text(WIDTH / 2.0, 90.0, message, Anchor::Middle, 13.0, INK);
    doc.finish()
}

/// Shortens `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Well-formedness checks of the SVG this module writes, for the plot
/// tests of the report and of the environments' plugins.
pub mod check {

    /// Minimal well-formedness check: one `<svg>` root, balanced tags,
    /// quoted attributes, no raw `&` or `<` in text.
    ///
    /// # Panics
    /// When the document is not well formed.
    pub fn assert_well_formed(svg: &str) {
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains("viewBox=\"0 0 "));
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        let mut roots = 0;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open]);
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
            check_attributes(tag);
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().expect("closing tag without opening");
                assert_eq!(top, name.trim(), "mismatched closing tag");
            } else {
                let name: String = tag
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != '/')
                    .collect();
                assert!(!name.is_empty(), "empty tag name");
                if stack.is_empty() {
                    roots += 1;
                }
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &rest[close + 1..];
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed tags: {stack:?}");
        assert_eq!(roots, 1, "exactly one root element");
    }

    fn check_text(t: &str) {
        let mut s = t;
        while let Some(i) = s.find('&') {
            let after = &s[i + 1..];
            let end = after.find(';').expect("unterminated entity");
            assert!(
                ["amp", "lt", "gt", "quot", "apos"].contains(&&after[..end]),
                "unknown entity in {t}"
            );
            s = &after[end + 1..];
        }
        assert!(!t.contains('>'), "raw `>` in text: {t}");
    }

    fn check_attributes(tag: &str) {
        assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
        // Attribute values: text between quotes must be escaped too.
        for (i, part) in tag.split('"').enumerate() {
            if i % 2 == 1 {
                assert!(!part.contains('<') && !part.contains('>'), "{tag}");
                check_text(part);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check::assert_well_formed;
    use super::*;

    #[test]
    fn escaping_and_numbers() {
        assert_eq!(
            Markup::Svg.escape("a<b & \"c\" > 'd'\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;\u{fffd}"
        );
        assert_eq!(num(-0.001), "0.00");
        assert_eq!(num(f64::NAN), "0.00");
        assert_eq!(num(f64::INFINITY), "0.00");
        assert_eq!(num(1.005), format!("{:.2}", 1.005));
        assert_eq!(fixed(-0.4, 0), "0");
        assert_eq!(fixed(-1.5, 1), "-1.5");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn documents_are_well_formed() {
        let mut d = Doc::new(WIDTH, HEIGHT, "A <b> & \"c\"");
        d.rect(1.0, 2.0, -3.0, 4.0, PALETTE[0]);
        d.line(0.0, 0.0, 1.0, 1.0, GRID, true);
        d.polyline(&[(0.0, 0.0), (1.0, f64::NAN)], INK);
        d.circle(1.0, 1.0, 2.0, INK);
        d.text_vertical(10.0, 10.0, "y < 1");
        d.legend(10.0, 10.0, &[("a&b", PALETTE[1])]);
        let svg = d.finish();
        assert_well_formed(&svg);
        assert!(svg.contains("<title>A &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert_well_formed(&placeholder("t", "no <data>"));
    }
}
