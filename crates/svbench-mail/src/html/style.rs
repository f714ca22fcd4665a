//! What an element's inline `style` (and the `hidden`, `bgcolor` and
//! `<font color>` attributes) does to the visibility of its text, decided as
//! a browser would from the declarations it can read: which properties hide
//! a whole subtree, which are inherited and can be undone by a descendant.
//!
//! Only inline styles are read (no style sheets, no cascade across
//! elements other than inheritance), so this errs towards showing text.

use super::color::{parse_color, Paint, Rgb};

/// How the element itself changes the inherited visibility state.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Style {
    /// `display:none` or `opacity:0`: the subtree is not shown, whatever
    /// it sets.
    pub hides_subtree: bool,
    /// A zero height or width with `overflow:hidden`: the subtree is not
    /// shown when the element is a box those apply to (see [`is_box`]).
    pub collapsed: bool,
    /// The `display` value, when one is set.
    pub display: Option<Display>,
    /// `visibility`: `Some(false)` hidden, `Some(true)` visible again.
    pub visibility: Option<bool>,
    /// `font-size` (or the size of the `font` shorthand).
    pub font_size: Option<FontSize>,
    /// `color`.
    pub color: Option<Paint>,
    /// `background-color` / `background`: `Some(None)` when an image or a
    /// colour that cannot be read makes the background unknown.
    pub background: Option<Option<Paint>>,
}

/// What a `display` value makes of the element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Display {
    /// `none`.
    None,
    /// `inline`: heights, widths and overflow do not apply.
    Inline,
    /// A table part: it grows to its content whatever its height.
    Table,
    /// A block, inline block, flex or grid box, a list item.
    Box,
}

impl Display {
    fn parse(value: &str) -> Option<Display> {
        let v = value.trim();
        let any = |names: &[&str]| names.iter().any(|n| v.eq_ignore_ascii_case(n));
        Some(if any(&["none"]) {
            Display::None
        } else if any(&["inline", "contents"]) {
            Display::Inline
        } else if v.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("table")) {
            Display::Table
        } else if v.is_empty() {
            return None;
        } else {
            Display::Box
        })
    }
}

/// Whether a zero height or width with `overflow:hidden` hides what an
/// element holds: only on a box (a block by default or by `display`), not
/// on inline elements (they have no height) or table parts (they grow).
pub(super) fn is_box(name: &str, display: Option<Display>) -> bool {
    const BLOCKS: [&str; 18] = [
        "div",
        "p",
        "section",
        "article",
        "header",
        "footer",
        "center",
        "blockquote",
        "ul",
        "ol",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
    ];
    match display {
        Some(d) => d == Display::Box,
        None => BLOCKS.contains(&name),
    }
}

/// A `font-size` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FontSize {
    /// Zero, in any unit.
    Zero,
    /// A non-zero size that does not depend on the parent's (`16px`,
    /// `medium`, `1rem`).
    Absolute,
    /// A size relative to the parent's (`1.5em`, `120%`, `larger`): zero
    /// under a zero parent.
    Relative,
}

/// The inherited state at an element: what its text nodes look like.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Inherited {
    /// The font size computes to zero.
    pub font_zero: bool,
    /// `visibility:hidden` applies.
    pub invisible: bool,
    /// The text colour, where one is stated inline.
    pub color: Option<Paint>,
    /// The background behind the element, where one is stated inline and
    /// nothing unknown (an image) was painted over it since.
    pub background: Option<Rgb>,
}

impl Inherited {
    /// The state of an element with `style` under `self`.
    pub fn apply(self, style: &Style) -> Inherited {
        let mut next = self;
        match style.font_size {
            Some(FontSize::Zero) => next.font_zero = true,
            Some(FontSize::Absolute) => next.font_zero = false,
            Some(FontSize::Relative) | None => {}
        }
        if let Some(visible) = style.visibility {
            next.invisible = !visible;
        }
        if style.color.is_some() {
            next.color = style.color;
        }
        match style.background {
            Some(Some(Paint::Color(c))) => next.background = Some(c),
            Some(Some(Paint::Transparent)) => {}
            Some(None) => next.background = None,
            None => {}
        }
        next
    }

    /// Text under this state is not seen by the reader.
    pub fn hides_text(&self) -> bool {
        self.font_zero
            || self.invisible
            || match self.color {
                // `transparent` text is not shown at all.
                Some(Paint::Transparent) => true,
                Some(Paint::Color(c)) => self.background == Some(c),
                None => false,
            }
    }
}

/// One declaration's value with `!important` removed, and whether it had it.
fn important(value: &str) -> (&str, bool) {
    let v = value.trim();
    match v.rfind('!') {
        Some(i) if v[i + 1..].trim().eq_ignore_ascii_case("important") => (v[..i].trim(), true),
        _ => (v, false),
    }
}

/// A declaration slot: later declarations win, except over `!important`.
#[derive(Default, Clone, Copy)]
struct Slot<T> {
    value: Option<T>,
    important: bool,
}

impl<T> Slot<T> {
    fn set(&mut self, value: T, important: bool) {
        if important || !self.important {
            self.value = Some(value);
            self.important = important;
        }
    }
}

/// Read an inline `style` attribute once.
pub(super) fn parse_style(style: &str) -> Style {
    let mut display: Slot<Option<Display>> = Slot::default();
    let mut visibility: Slot<bool> = Slot::default();
    let mut opacity_zero: Slot<bool> = Slot::default();
    let mut font_size: Slot<Option<FontSize>> = Slot::default();
    let mut color: Slot<Option<Paint>> = Slot::default();
    let mut background: Slot<Option<Paint>> = Slot::default();
    let mut zero_height: Slot<bool> = Slot::default();
    let mut zero_width: Slot<bool> = Slot::default();
    let mut overflow_hidden: Slot<bool> = Slot::default();
    for decl in style.split(';') {
        let Some((name, value)) = decl.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let (value, imp) = important(value);
        let is = |n: &str| name.eq_ignore_ascii_case(n);
        if is("display") {
            display.set(Display::parse(value), imp);
        } else if is("visibility") {
            visibility.set(
                !(value.eq_ignore_ascii_case("hidden") || value.eq_ignore_ascii_case("collapse")),
                imp,
            );
        } else if is("opacity") {
            if let Some(n) = number(value) {
                opacity_zero.set(n.0 == 0.0, imp);
            }
        } else if is("font-size") {
            font_size.set(parse_font_size(value), imp);
        } else if is("font") {
            // `font: 0/0 a`, `font: 700 14px Arial`: the size is the token
            // before a `/`, or a length with a unit (a bare number other
            // than zero is a weight).
            let size = value
                .split_whitespace()
                .find(|t| {
                    t.contains('/')
                        || number(t).is_some_and(|(n, unit)| n == 0.0 || !unit.is_empty())
                })
                .map(|t| t.split('/').next().unwrap_or(t))
                .and_then(parse_font_size);
            if size.is_some() {
                font_size.set(size, imp);
            }
        } else if is("color") {
            color.set(parse_color(value), imp);
        } else if is("background-color") {
            background.set(parse_color(value), imp);
        } else if is("background") {
            background.set(background_shorthand(value), imp);
        } else if is("max-height") || is("height") {
            if let Some(zero) = number(value).map(|n| n.0 == 0.0) {
                zero_height.set(zero, imp);
            }
        } else if is("max-width") || is("width") {
            if let Some(zero) = number(value).map(|n| n.0 == 0.0) {
                zero_width.set(zero, imp);
            }
        } else if is("overflow") || is("overflow-y") || is("overflow-x") {
            overflow_hidden.set(value.eq_ignore_ascii_case("hidden"), imp);
        }
    }
    let display = display.value.flatten();
    Style {
        hides_subtree: display == Some(Display::None) || opacity_zero.value == Some(true),
        collapsed: overflow_hidden.value == Some(true)
            && (zero_height.value == Some(true) || zero_width.value == Some(true)),
        display,
        visibility: visibility.value,
        font_size: font_size.value.flatten(),
        color: match color.value {
            // A colour that cannot be read changes nothing we know of.
            Some(None) | None => None,
            Some(paint) => paint,
        },
        background: background.value,
    }
}

/// The colour of a `background` shorthand; `None` (unknown) when it paints
/// an image or gradient, or names no colour we read.
fn background_shorthand(value: &str) -> Option<Paint> {
    let lower_has = |needle: &str| {
        value
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    };
    if lower_has("url(") || lower_has("gradient(") {
        return None;
    }
    if let Some(paint) = parse_color(value) {
        return Some(paint);
    }
    tokens(value).find_map(parse_color)
}

/// Whitespace-separated tokens, keeping `rgb(1, 2, 3)` whole.
fn tokens(value: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0usize;
    let mut start = None;
    let mut out = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if let Some(s) = start.take() {
                out.push(&value[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&value[s..]);
    }
    out.into_iter()
}

/// A leading number and the unit after it (`"0.5em"` → `(0.5, "em")`).
fn number(value: &str) -> Option<(f64, &str)> {
    let v = value.trim();
    let end = v
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(v.len(), |(i, _)| i);
    let n: f64 = v[..end].parse().ok()?;
    n.is_finite().then_some((n, v[end..].trim()))
}

fn parse_font_size(value: &str) -> Option<FontSize> {
    const ABSOLUTE: [&str; 9] = [
        "xx-small",
        "x-small",
        "small",
        "medium",
        "large",
        "x-large",
        "xx-large",
        "xxx-large",
        "initial",
    ];
    const RELATIVE_UNITS: [&str; 4] = ["em", "%", "ex", "ch"];
    let value = value.trim();
    if ABSOLUTE.iter().any(|k| value.eq_ignore_ascii_case(k)) {
        return Some(FontSize::Absolute);
    }
    if value.eq_ignore_ascii_case("larger") || value.eq_ignore_ascii_case("smaller") {
        return Some(FontSize::Relative);
    }
    let (n, unit) = number(value)?;
    Some(if n <= 0.0 {
        FontSize::Zero
    } else if RELATIVE_UNITS.iter().any(|u| unit.eq_ignore_ascii_case(u)) {
        FontSize::Relative
    } else {
        FontSize::Absolute
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_read_like_a_browser() {
        let s = parse_style("DISPLAY : None !IMPORTANT");
        assert!(s.hides_subtree);
        let s = parse_style("display:none!important; display:block");
        assert!(
            s.hides_subtree,
            "a later plain declaration loses to !important"
        );
        let s = parse_style("display:none; display:block");
        assert!(!s.hides_subtree && s.display == Some(Display::Box));
        assert_eq!(parse_style("font:0/0 a").font_size, Some(FontSize::Zero));
        assert_eq!(
            parse_style("font-size:1.5em").font_size,
            Some(FontSize::Relative)
        );
        assert_eq!(
            parse_style("font-size: 16px").font_size,
            Some(FontSize::Absolute)
        );
        assert!(parse_style("max-height:0px;overflow:hidden").collapsed);
        assert!(!parse_style("max-height:0px").collapsed);
        assert_eq!(
            parse_style("font:700 14px Arial").font_size,
            Some(FontSize::Absolute)
        );
        assert_eq!(parse_style("font:bold 0 a").font_size, Some(FontSize::Zero));
        assert!(parse_style("opacity:0.0").hides_subtree);
        assert!(!parse_style("opacity:0.5").hides_subtree);
        assert_eq!(
            parse_style("background:url(x.png) #fff").background,
            Some(None)
        );
        assert_eq!(
            parse_style("display:abcd\u{20ac}").display,
            Some(Display::Box)
        );
    }

    proptest::proptest! {
        #[test]
        fn any_style_is_read_without_panicking(style in "\\PC{0,80}") {
            let _ = parse_style(&style);
        }

        #[test]
        fn any_declaration_of_known_properties_is_read(
            decls in proptest::collection::vec((
                proptest::sample::select(vec![
                    "display", "font", "font-size", "color", "background", "background-color",
                    "visibility", "opacity", "max-height", "width", "overflow",
                ]),
                "[ !#%()/,.0-9a-zA-Z\u{e9}\u{20ac}]{0,20}",
            ), 0..6),
        ) {
            let style: String = decls.iter().map(|(n, v)| format!("{n}:{v};")).collect();
            let _ = parse_style(&style);
        }
    }
}
