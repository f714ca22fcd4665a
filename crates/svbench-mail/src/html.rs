//! HTML reduced to the text a mail client shows, deterministically: one
//! iterative walk over html5ever's DOM (no recursion, so nesting depth costs
//! nothing), skipping `head`, `script`, `style` and what inline styles hide
//! from the reader ([`style`]: inherited as a browser inherits it).
//!
//! The part is cut before parsing at `max_html_bytes`, `max_html_tags` and
//! the attribute limits ([`super::tags`]), so that html5ever's work is
//! linear in what it reads. It is then fed to html5ever in small pieces:
//! between two, the deadline is checked, and parsing stops once the tree
//! holds twice `max_html_nodes` nodes (the tree builder re-creates every
//! formatting element left open at each new paragraph, so 44 KB of tags
//! built 2.5 million nodes); the walk renders at most `max_html_nodes`.

use ego_tree::iter::Edge;
use html5ever::tendril::{StrTendril, TendrilSink};
use scraper::{Html, HtmlTreeSink, Node};

use super::links::{normalized_url, Link};
use super::render::invisible::mark_invisibles;
use super::tags::scan_attributes;
use super::EmailLimits;
use crate::{Deadline, TimeBudgetExceeded};
use svbench_core::text::cut_at_char;

mod color;
mod style;

use color::parse_color;
use style::{is_box, parse_style, Display, Inherited, Style};

/// Nodes walked between two deadline checks.
const CHECK_EVERY: usize = 4_096;

/// Bytes given to html5ever at a time (then the deadline and the tree's
/// size are checked). One piece holds at most a few hundred tags.
const PIECE_BYTES: usize = 1_024;

/// `input` parsed as a document, piece by piece, until the tree holds
/// `max_nodes` nodes (`true` when it stopped there).
fn parse_pieces(
    input: &str,
    piece_bytes: usize,
    max_nodes: usize,
    deadline: &Deadline,
) -> Result<(Html, bool), TimeBudgetExceeded> {
    let mut parser = html5ever::driver::parse_document(
        HtmlTreeSink::new(Html::new_document()),
        Default::default(),
    );
    let mut rest = input;
    let mut stopped = false;
    while !rest.is_empty() {
        let piece = cut_at_char(rest, piece_bytes.max(4));
        rest = &rest[piece.len()..];
        parser.process(StrTendril::from_slice(piece));
        deadline.check()?;
        if parser.tokenizer.sink.sink.0.borrow().tree.nodes().len() > max_nodes {
            stopped = !rest.is_empty();
            break;
        }
    }
    Ok((parser.finish(), stopped))
}

/// The text of an HTML body and what the walk found on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtmlText {
    /// Lines of text; links as `TEXT [link: HREF]`, images as `[image: ALT]`.
    pub text: String,
    /// Every shown `<a href>`, in document order (at most `max_links`).
    pub links: Vec<Link>,
    /// Where each link's rendering (`TEXT [link: HREF]`, or the text alone)
    /// ends in `text`, in bytes: with `links`, what a cut body still shows.
    pub link_ends: Vec<usize>,
    /// Some text was hidden from the reader by inline style (or the
    /// `hidden` attribute).
    pub hidden_text: bool,
    /// The input or the walk hit a limit; the rest was not rendered.
    pub truncated: bool,
}

const SKIPPED: &[&str] = &["head", "script", "style", "title", "template", "noscript"];
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "ul",
    "ol",
    "blockquote",
    "pre",
    "section",
    "article",
    "header",
    "footer",
    "hr",
    "center",
];

/// Reduce `html` to text within `limits`.
pub fn html_to_text(html: &str, limits: &EmailLimits) -> HtmlText {
    match html_to_text_within(html, limits, &Deadline::NONE) {
        Ok(text) => text,
        // `Deadline::NONE` never passes.
        Err(_) => HtmlText {
            truncated: true,
            ..HtmlText::default()
        },
    }
}

/// What html5ever reads of `html`: the part cut at the byte, tag and
/// attribute limits.
fn parsed_prefix<'a>(html: &'a str, limits: &EmailLimits) -> &'a str {
    let input = cut_at_tags(
        cut_at_char(html, limits.max_html_bytes),
        limits.max_html_tags,
    );
    let scan = scan_attributes(
        input,
        limits.max_html_attributes,
        limits.max_html_formatting_attributes,
    );
    input.get(..scan.keep).unwrap_or(input)
}

/// [`html_to_text`] that stops once `deadline` has passed.
///
/// # Errors
/// [`TimeBudgetExceeded`], checked before and after the parse and every
/// few thousand nodes of the walk.
pub fn html_to_text_within(
    html: &str,
    limits: &EmailLimits,
    deadline: &Deadline,
) -> Result<HtmlText, TimeBudgetExceeded> {
    deadline.check()?;
    let input = parsed_prefix(html, limits);
    let mut out = HtmlText {
        truncated: input.len() < html.len(),
        ..HtmlText::default()
    };
    let (doc, stopped) = parse_pieces(
        input,
        PIECE_BYTES,
        limits.max_html_nodes.saturating_mul(2),
        deadline,
    )?;
    out.truncated |= stopped;
    let mut walk = Walk::new(limits.max_links);
    let mut nodes = 0usize;
    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => {
                nodes += 1;
                if nodes.is_multiple_of(CHECK_EVERY) {
                    deadline.check()?;
                }
                if nodes > limits.max_html_nodes {
                    out.truncated = true;
                    break;
                }
                walk.open(node);
            }
            Edge::Close(node) => walk.close(node),
        }
    }
    out.hidden_text = walk.hidden_text;
    out.links = walk.links;
    out.link_ends = walk.link_ends;
    out.text = walk.text.finish();
    Ok(out)
}

/// An element whose subtree is skipped, and whether style hid it (rather
/// than being a `head`, `script`, … element).
struct Skipping {
    id: ego_tree::NodeId,
    hidden: bool,
}

/// An open `<a href>`.
struct Anchor {
    id: ego_tree::NodeId,
    /// Where its visible text starts in the text being built.
    start: usize,
    href: String,
    /// Hidden text nodes seen before it opened.
    hidden_before: usize,
}

/// The state of the DOM walk.
struct Walk {
    text: Text,
    links: Vec<Link>,
    link_ends: Vec<usize>,
    max_links: usize,
    hidden_text: bool,
    /// Text nodes with words that style hid.
    hidden_nodes: usize,
    skipping: Option<Skipping>,
    anchors: Vec<Anchor>,
    /// The inherited visibility state of each open element that changed
    /// it (only elements with a `style`, `bgcolor` or `<font color>`).
    styles: Vec<(ego_tree::NodeId, Inherited)>,
}

impl Walk {
    fn new(max_links: usize) -> Self {
        Self {
            text: Text::default(),
            links: Vec::new(),
            link_ends: Vec::new(),
            max_links,
            hidden_text: false,
            hidden_nodes: 0,
            skipping: None,
            anchors: Vec::new(),
            styles: Vec::new(),
        }
    }

    fn state(&self) -> Inherited {
        self.styles.last().map(|(_, s)| *s).unwrap_or_default()
    }

    fn open(&mut self, node: ego_tree::NodeRef<'_, Node>) {
        if let Some(skip) = &self.skipping {
            if skip.hidden && matches!(node.value(), Node::Text(t) if !t.trim().is_empty()) {
                self.hidden_text = true;
                self.hidden_nodes += 1;
            }
            return;
        }
        match node.value() {
            Node::Text(t) => {
                if self.state().hides_text() {
                    if !t.trim().is_empty() {
                        self.hidden_text = true;
                        self.hidden_nodes += 1;
                    }
                } else {
                    self.text.push(t);
                }
            }
            Node::Element(e) => {
                let name = e.name();
                if SKIPPED.contains(&name) {
                    self.skipping = Some(Skipping {
                        id: node.id(),
                        hidden: false,
                    });
                    return;
                }
                // One pass over the attributes; a style is parsed once, and
                // only when there is one.
                let mut style_attr = None;
                let mut hidden_attr = false;
                let mut legacy_color = None;
                for (attr, value) in e.attrs() {
                    match attr {
                        "style" => style_attr = Some(value),
                        "hidden" => hidden_attr = true,
                        "bgcolor" | "color" => legacy_color = Some((attr, value)),
                        _ => {}
                    }
                }
                let style = style_attr.map(parse_style);
                let display = style.as_ref().and_then(|s| s.display);
                let hidden_attr = hidden_attr && display.is_none_or(|d| d == Display::None);
                let hidden_style = style
                    .as_ref()
                    .is_some_and(|s| s.hides_subtree || (s.collapsed && is_box(name, display)));
                if hidden_attr || hidden_style {
                    self.skipping = Some(Skipping {
                        id: node.id(),
                        hidden: true,
                    });
                    return;
                }
                let legacy =
                    legacy_color.and_then(|(attr, value)| legacy_colors(name, attr, value));
                if style.is_some() || legacy.is_some() {
                    let mut state = self.state();
                    if let Some(legacy) = &legacy {
                        state = state.apply(legacy);
                    }
                    if let Some(style) = &style {
                        state = state.apply(style);
                    }
                    self.styles.push((node.id(), state));
                }
                if BLOCKS.contains(&name) {
                    self.text.line_break(name == "br");
                }
                match name {
                    "li" => self.text.push_raw("- "),
                    "img" if !self.state().invisible => {
                        if let Some(alt) = e.attr("alt").map(str::trim).filter(|a| !a.is_empty()) {
                            self.text.push(&format!("[image: {alt}]"));
                        }
                    }
                    "a" => {
                        if let Some(href) = e.attr("href").map(str::trim).filter(|h| !h.is_empty())
                        {
                            self.anchors.push(Anchor {
                                id: node.id(),
                                start: self.text.buf.len(),
                                href: href.to_string(),
                                hidden_before: self.hidden_nodes,
                            });
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, node: ego_tree::NodeRef<'_, Node>) {
        if let Some(skip) = &self.skipping {
            if skip.id == node.id() {
                self.skipping = None;
            }
            return;
        }
        let Node::Element(e) = node.value() else {
            return;
        };
        if self.styles.last().is_some_and(|(id, _)| *id == node.id()) {
            self.styles.pop();
        }
        let closes_anchor =
            e.name() == "a" && self.anchors.last().is_some_and(|a| a.id == node.id());
        if let Some(anchor) = closes_anchor.then(|| self.anchors.pop()).flatten() {
            let visible = self
                .text
                .buf
                .get(anchor.start..)
                .unwrap_or("")
                .trim()
                .to_string();
            // A link whose every word was hidden is not shown either.
            if visible.is_empty() && self.hidden_nodes > anchor.hidden_before {
                return;
            }
            if normalized_url(&visible) != normalized_url(&anchor.href) {
                self.text.push(&format!(" [link: {}]", anchor.href));
            }
            if self.links.len() < self.max_links {
                self.links.push(Link::new(&visible, &anchor.href));
                self.link_ends.push(self.text.buf.trim_end().len());
            }
        } else if BLOCKS.contains(&e.name()) && e.name() != "br" {
            self.text.line_break(false);
        }
    }
}

/// The colour of a `bgcolor` (tables, cells, body) or `<font color>`
/// attribute, as a style would state it.
fn legacy_colors(name: &str, attr: &str, value: &str) -> Option<Style> {
    match (attr, name) {
        ("bgcolor", "body" | "table" | "tr" | "td" | "th") => Some(Style {
            background: Some(parse_color(value)),
            ..Style::default()
        }),
        ("color", "font") => Some(Style {
            color: Some(parse_color(value)?),
            ..Style::default()
        }),
        _ => None,
    }
}

/// What html5ever built from the part of an HTML body that
/// [`html_to_text`] parses: a check, for tests and fuzzing, that the limits
/// applied before parsing hold in the tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DomStats {
    /// Bytes html5ever read.
    pub parsed_bytes: usize,
    /// Elements in the tree.
    pub elements: usize,
    /// The most attributes of one element.
    pub max_attributes: usize,
    /// Attributes of the `html` and `body` elements together.
    pub html_body_attributes: usize,
    /// Sum over elements of attributes squared (what comparing each
    /// attribute with its tag's earlier ones costs).
    pub attribute_pairs: usize,
    /// Attributes of formatting elements other than `a`.
    pub formatting_attributes: usize,
    /// Nodes in the tree (parsing stops past twice `max_html_nodes`).
    pub nodes: usize,
}

/// [`DomStats`] of `html` under `limits`.
#[must_use]
pub fn html_dom_stats(html: &str, limits: &EmailLimits) -> DomStats {
    const FORMATTING: [&str; 13] = [
        "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
    ];
    let input = parsed_prefix(html, limits);
    let doc = match parse_pieces(
        input,
        PIECE_BYTES,
        limits.max_html_nodes.saturating_mul(2),
        &Deadline::NONE,
    ) {
        Ok((doc, _)) => doc,
        // `Deadline::NONE` never passes.
        Err(_) => Html::new_document(),
    };
    let mut stats = DomStats {
        parsed_bytes: input.len(),
        ..DomStats::default()
    };
    stats.nodes = doc.tree.nodes().len();
    for node in doc.tree.nodes() {
        let Node::Element(e) = node.value() else {
            continue;
        };
        let n = e.attrs().count();
        stats.elements += 1;
        stats.max_attributes = stats.max_attributes.max(n);
        stats.attribute_pairs += n * n;
        if matches!(e.name(), "html" | "body") {
            stats.html_body_attributes += n;
        }
        if FORMATTING.contains(&e.name()) {
            stats.formatting_attributes += n;
        }
    }
    stats
}

/// `html` cut before its `max`+1-th `<`: html5ever checks element scope by
/// walking the stack of open elements, so thousands of unclosed tags would
/// cost time quadratic in their number.
fn cut_at_tags(html: &str, max: usize) -> &str {
    match html.match_indices('<').nth(max) {
        Some((i, _)) => &html[..i],
        None => html,
    }
}

/// The text being built: whitespace collapsed, lines trimmed, at most one
/// blank line in a row.
#[derive(Debug, Default)]
struct Text {
    buf: String,
}

impl Text {
    fn at_line_start(&self) -> bool {
        self.buf.is_empty() || self.buf.ends_with('\n')
    }

    fn push(&mut self, s: &str) {
        if s.trim().is_empty() {
            if !s.is_empty() && !self.at_line_start() && !self.buf.ends_with(' ') {
                self.buf.push(' ');
            }
            return;
        }
        for (i, word) in s.split_whitespace().enumerate() {
            let space_before = i > 0 || s.starts_with(char::is_whitespace);
            if space_before && !self.at_line_start() && !self.buf.ends_with(' ') {
                self.buf.push(' ');
            }
            self.buf.push_str(&mark_invisibles(word));
        }
        if s.ends_with(char::is_whitespace) && !self.at_line_start() {
            self.buf.push(' ');
        }
    }

    fn push_raw(&mut self, s: &str) {
        self.buf.push_str(s);
    }

    /// End the current line; `blank_allowed` (a `<br>`) may leave one empty line.
    fn line_break(&mut self, blank_allowed: bool) {
        while self.buf.ends_with(' ') {
            self.buf.pop();
        }
        if self.buf.is_empty() {
            return;
        }
        if !self.buf.ends_with('\n') || (blank_allowed && !self.buf.ends_with("\n\n")) {
            self.buf.push('\n');
        }
    }

    /// The text with its trailing whitespace dropped. Pushes already keep
    /// it tidy (one space between words, no space at a line's ends, at most
    /// one blank line), so offsets into `buf` stay valid (tested).
    fn finish(mut self) -> String {
        let end = self.buf.trim_end().len();
        self.buf.truncate(end);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> HtmlText {
        html_to_text(html, &EmailLimits::default())
    }

    #[test]
    fn blocks_lists_links_images_and_entities() {
        let t = text(
            "<html><head><title>x</title><style>p{}</style></head><body>\
             <p>Dear  customer,<br>We &amp; you</p><ul><li>one</li><li>two</li></ul>\
             <a href=\"http://203.0.113.7/login\">Verify <b>now</b></a> \
             <a href=\"https://www.bank.test/\">bank.test</a><img alt=\"logo\" src=x></body></html>",
        );
        assert_eq!(
            t.text,
            "Dear customer,\nWe & you\n- one\n- two\nVerify now [link: http://203.0.113.7/login] bank.test[image: logo]"
        );
        assert_eq!(t.links.len(), 2);
        assert_eq!(t.links[0].visible_text, "Verify now");
        assert_eq!(t.links[1].text_host.as_deref(), Some("bank.test"));
        assert!(!t.hidden_text && !t.truncated);
    }

    #[test]
    fn hidden_text_is_skipped_and_recorded() {
        let t = text("<p>shown</p><div style=\"display: none\">secret</div><span style='font-size:0px'>x</span>");
        assert_eq!(t.text, "shown");
        assert!(t.hidden_text);
        assert!(!text("<p style=\"font-size:12px\">big</p>").hidden_text);
        assert_eq!(text("<p style=\"font-size:10px\">ten</p>").text, "ten");
    }

    #[test]
    fn deep_nesting_and_node_limits_are_bounded() {
        let deep = "<div>".repeat(100_000) + "x" + &"</div>".repeat(100_000);
        let t = html_to_text(&deep, &EmailLimits::default());
        assert!(t.truncated && t.text.is_empty());
        let t = html_to_text(
            &deep[..5_000],
            &EmailLimits {
                max_html_nodes: 100,
                ..EmailLimits::default()
            },
        );
        assert!(t.truncated);
        let t = html_to_text(&"<b>".repeat(50_000), &EmailLimits::default());
        assert!(t.text.is_empty());
    }

    fn attrs(n: usize, prefix: &str) -> String {
        (0..n).map(|i| format!(" {prefix}{i}")).collect()
    }

    #[test]
    fn a_tag_with_300_000_attributes_is_cut_before_parsing() {
        // ~2 MiB: html5ever compared each attribute with every earlier one
        // (27–50 s); the part is now cut before the tag.
        let html = format!("<p>before</p><p{}>after</p>", attrs(300_000, "a"));
        let t = text(&html);
        assert_eq!(t.text, "before");
        assert!(t.truncated);
        let stats = html_dom_stats(&html, &EmailLimits::default());
        assert_eq!(stats.parsed_bytes, "<p>before</p>".len());
        // At the limit nothing is cut.
        let html = format!("<p{}>all</p>", attrs(64, "a"));
        let t = text(&html);
        assert_eq!((t.text.as_str(), t.truncated), ("all", false));
        assert_eq!(
            html_dom_stats(&html, &EmailLimits::default()).max_attributes,
            64
        );
    }

    #[test]
    fn attributes_are_counted_wherever_html5ever_may_read_a_tag() {
        let limits = EmailLimits::default();
        let many = attrs(5_000, "a");
        for wrapper in [
            // Raw text that ends where a naive scan sees a quote open.
            format!("<script><a x=\"</script><p{many}>x</p>"),
            format!("<style><a x='</style><p{many}>x</p>"),
            format!("<!-- <a x=\" --><p{many}>x</p>"),
            format!("<svg><style><p{many}>x</p></style></svg>"),
            format!("<title><a x=\"</title><p{many}>x"),
            // Values that hold `>`, unquoted, after a quote, after a slash.
            format!("<p a=\">\" b='>'{many}>x"),
            format!(
                "<p {}>x",
                (0..5_000)
                    .map(|i| format!("a{i}=\"v\""))
                    .collect::<String>()
            ),
            format!(
                "<p{}>x",
                (0..5_000).map(|i| format!("/a{i}")).collect::<String>()
            ),
            format!("</p{many}>x"),
        ] {
            let stats = html_dom_stats(&wrapper, &limits);
            assert!(stats.max_attributes <= 64, "{}", &wrapper[..40]);
            assert!(
                stats.attribute_pairs <= 64 * stats.parsed_bytes + 4_096,
                "{stats:?}"
            );
            assert!(
                html_to_text(&wrapper, &limits).truncated,
                "{}",
                &wrapper[..40]
            );
        }
    }

    #[test]
    fn repeated_html_and_body_tags_and_formatting_tags_are_bounded() {
        let limits = EmailLimits::default();
        // 10,000 `<body>` tags of 10 new attributes each: html5ever merges
        // them into one sorted list.
        let bodies: String = (0..10_000)
            .map(|i| format!("<body{}>", attrs(10, &format!("b{i}_"))))
            .collect();
        let stats = html_dom_stats(&bodies, &limits);
        assert!(stats.html_body_attributes <= 64, "{stats:?}");
        // 10,000 unclosed `<b>` tags with distinct attributes: each new one
        // was compared with every open one (minutes).
        let bold: String = (0..10_000)
            .map(|i| format!("<b x={i}{}>", attrs(20, "a")))
            .collect();
        let t = html_to_text(&(bold.clone() + "tail"), &limits);
        assert!(t.truncated);
        let stats = html_dom_stats(&bold, &limits);
        assert!(stats.parsed_bytes < bold.len() / 10, "{stats:?}");
        // Closed ones, and `<a>` (at most one is open), are not limited.
        let closed: String = (0..2_000).map(|i| format!("<a href=x{i}>l</a> ")).collect();
        assert!(!html_to_text(&closed, &limits).truncated);
    }

    #[test]
    fn the_attribute_scan_is_linear() {
        for n in [1_000usize, 100_000] {
            let html = format!("<p a=\"{}\"{}>", "<b ".repeat(n), " x".repeat(n));
            let scan = scan_attributes(&html, usize::MAX, usize::MAX);
            assert!(
                scan.steps <= 12 * html.len(),
                "{} steps for {} bytes",
                scan.steps,
                html.len()
            );
        }
    }

    #[test]
    fn a_passed_deadline_stops_the_walk() {
        let passed = Deadline::at(
            std::time::Instant::now(),
            std::time::Duration::from_millis(3),
        );
        let err = html_to_text_within("<p>x</p>", &EmailLimits::default(), &passed).unwrap_err();
        assert_eq!(err.budget, std::time::Duration::from_millis(3));
    }

    #[test]
    fn parsing_in_pieces_gives_the_same_tree() {
        let samples = [
            "<html><head><title>t</title></head><body><p>Dear&nbsp;customer,<br>x</p>\r\n\
             <table><tr><td>a<b>b</td></tr></table><a href=\"http://x.test/\">go</a>\
             <!-- c --><script>if (a<b) {}</script><p>caf\u{e9} \u{1F600}</p>\r\n<i>open",
            "<svg><style><p a>b</p></style></svg><![CDATA[x]]><textarea><b>t</textarea>",
        ];
        for html in samples {
            let whole = Html::parse_document(html).html();
            for piece in 1..12 {
                let (doc, stopped) =
                    parse_pieces(html, piece, usize::MAX, &Deadline::NONE).unwrap();
                assert_eq!(doc.html(), whole, "pieces of {piece} bytes");
                assert!(!stopped);
            }
        }
    }

    #[test]
    fn formatting_elements_left_open_do_not_multiply_the_tree() {
        // 500 open <b> tags with distinct attributes, then 5,000 paragraphs:
        // each paragraph re-created all 500 (2.5 million nodes, 425 MB).
        let html = format!(
            "<div>{}</div>{}",
            (0..500).map(|i| format!("<b x={i}>")).collect::<String>(),
            "<p>x</p>".repeat(5_000)
        );
        let limits = EmailLimits::default();
        let stats = html_dom_stats(&html, &limits);
        assert!(
            stats.nodes <= 2 * limits.max_html_nodes + 200_000,
            "{stats:?}"
        );
        assert!(html_to_text(&html, &limits).truncated);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// The walk's text is already tidy, so the offsets it records (each
        /// link's end) stay valid, and each link's rendering ends there.
        #[test]
        fn the_text_is_tidy_and_link_ends_point_into_it(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "<p>", "</p>", "<br>", "<li>", "<div style=\"font-size:0\">", "</div>",
                "<span style=\"font-size:12px\">", "</span>", "<a href=\"http://x.test/a b\">",
                "<a href=\"y.test\">", "</a>", "<img alt=\" a \">", " ", "\n", "&nbsp;", "word",
                "\u{200b}", "<b>", "</b>", "<td>", "<table>", "x.test", "\u{a0}\u{2003}",
            ]), 0..40),
        ) {
            let html: String = pieces.concat();
            let t = text(&html);
            proptest::prop_assert_eq!(super::super::tidy_lines(&t.text), t.text.clone());
            proptest::prop_assert_eq!(t.links.len(), t.link_ends.len());
            for (link, end) in t.links.iter().zip(&t.link_ends) {
                let before = t.text.get(..*end);
                proptest::prop_assert!(before.is_some(), "{html:?}");
                let before = before.unwrap_or_default();
                proptest::prop_assert!(
                    before.ends_with(']') || before.ends_with(link.visible_text.as_str()),
                    "{html:?} {link:?} {before:?}"
                );
            }
        }

        /// Whatever html5ever reads as a tag, the pass has counted: with a
        /// limit of 3, no element of the tree has more.
        #[test]
        fn no_element_of_the_tree_passes_the_attribute_limit(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "<p", "<b", "<body", "<html", "</p", " a", " b=1", " c=\"", "\"", "'", "=",
                "/", ">", "<script>", "</script>", "<style>", "</style>", "<!--", "-->",
                "<svg>", "<title>", "</title>", "<![CDATA[", "]]>", "\n", "x", "<", "\0",
            ]), 0..60),
        ) {
            let html: String = pieces.concat();
            let limits = EmailLimits {
                max_html_attributes: 3,
                max_html_formatting_attributes: 5,
                ..EmailLimits::default()
            };
            let stats = html_dom_stats(&html, &limits);
            proptest::prop_assert!(stats.max_attributes <= 3, "{html:?}: {stats:?}");
            proptest::prop_assert!(stats.html_body_attributes <= 3, "{html:?}: {stats:?}");
        }
    }
}
