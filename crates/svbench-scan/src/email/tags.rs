//! Attribute limits checked before html5ever parses an HTML part.
//!
//! html5ever's tokenizer checks each new attribute of a tag against every
//! earlier one (one tag with 300,000 attributes cost 27–50 s of CPU), its
//! tree builder merges the attributes of every repeated `<html>`/`<body>`
//! tag into one sorted list, and it compares each new formatting element
//! (`<b>`, `<font>`, …) with every open one of the same name, attributes
//! cloned and sorted (10,000 unclosed `<b>` tags with distinct attributes
//! took minutes). None of this can be interrupted from outside, so the
//! input is bounded first: the part is cut before the first tag that would
//! take a tag past [`EmailLimits::max_html_attributes`], the `<html>` and
//! `<body>` tags together past the same number, or the attributes of
//! formatting start tags past [`EmailLimits::max_html_formatting_attributes`].
//!
//! Which text html5ever reads as a tag depends on its tree builder (raw
//! text in `<script>`, `<style>`, `<title>`, comments, CDATA in SVG), so
//! the pass does not guess: it follows every tag html5ever could be in at
//! once — a tag may open at any `<` — with html5ever's own tag, attribute
//! and quoting states. Several candidate tags in the same state are merged
//! (keeping the larger count), so the pass is linear: at most a dozen
//! states per byte. It over-counts text that only looks like a tag; it
//! never under-counts a real one.
//!
//! [`EmailLimits::max_html_attributes`]: super::EmailLimits::max_html_attributes
//! [`EmailLimits::max_html_formatting_attributes`]: super::EmailLimits::max_html_formatting_attributes

/// The tree builder's formatting elements other than `a` (of which it
/// keeps at most one open), by lower-case name.
const FORMATTING: [&[u8]; 13] = [
    b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike", b"strong",
    b"tt", b"u",
];

/// Longest tag name worth remembering (`strike`, `strong`).
const NAME_MAX: usize = 6;

/// The tokenizer states inside a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    TagOpen,
    EndTagOpen,
    TagName,
    BeforeAttrName,
    AttrName,
    AfterAttrName,
    BeforeAttrValue,
    ValueDoubleQuoted,
    ValueSingleQuoted,
    ValueUnquoted,
    AfterValueQuoted,
    SelfClosing,
}

const STATES: usize = 12;

/// Every state, in slot order.
const ALL: [State; STATES] = [
    State::TagOpen,
    State::EndTagOpen,
    State::TagName,
    State::BeforeAttrName,
    State::AttrName,
    State::AfterAttrName,
    State::BeforeAttrValue,
    State::ValueDoubleQuoted,
    State::ValueSingleQuoted,
    State::ValueUnquoted,
    State::AfterValueQuoted,
    State::SelfClosing,
];

impl State {
    fn index(self) -> usize {
        self as usize
    }
}

/// One candidate tag.
#[derive(Debug, Clone, Copy)]
struct Tag {
    /// Byte offset of its `<`.
    start: usize,
    /// Attributes created so far.
    attributes: usize,
    /// An end tag (`</…`).
    end_tag: bool,
    /// Lower-case name, while it is being read; `None` once longer than
    /// [`NAME_MAX`] or not ASCII.
    name: Option<([u8; NAME_MAX], usize)>,
    /// A start tag named `html` or `body`.
    html_or_body: bool,
    /// A start tag named like a formatting element.
    formatting: bool,
}

impl Tag {
    fn merge(self, other: Tag) -> Tag {
        let newer = if other.start > self.start {
            other
        } else {
            self
        };
        Tag {
            start: self.start.min(other.start),
            attributes: self.attributes.max(other.attributes),
            end_tag: self.end_tag && other.end_tag,
            name: newer.name,
            html_or_body: self.html_or_body || other.html_or_body,
            formatting: self.formatting || other.formatting,
        }
    }

    fn push_name(&mut self, byte: u8) {
        self.name = match self.name {
            Some((mut buf, len)) if len < NAME_MAX && byte.is_ascii() && byte != 0 => {
                buf[len] = byte.to_ascii_lowercase();
                Some((buf, len + 1))
            }
            _ => None,
        };
    }

    /// The name is complete: classify it.
    fn named(mut self) -> Tag {
        if let Some((buf, len)) = self.name {
            let name = &buf[..len];
            if !self.end_tag {
                self.html_or_body = self.html_or_body || name == b"html" || name == b"body";
                self.formatting = self.formatting || FORMATTING.contains(&name);
            }
        }
        self
    }
}

/// Which limit cut the part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeLimit {
    /// One tag, or the `<html>` and `<body>` tags together, would pass
    /// `max_html_attributes`.
    PerTag,
    /// The formatting start tags together would pass
    /// `max_html_formatting_attributes`.
    Formatting,
}

/// What the pass found: where to cut, and the counts it ended with (the
/// largest any tag of the kept prefix may have).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeScan {
    /// Byte length of the prefix html5ever may parse.
    pub keep: usize,
    /// The limit that cut it, if one did.
    pub limit: Option<AttributeLimit>,
    /// Candidate-tag steps taken (at most a dozen per byte).
    pub steps: usize,
}

/// The prefix of `html` within the attribute limits (see the module).
#[must_use]
pub fn scan_attributes(html: &str, per_tag: usize, formatting: usize) -> AttributeScan {
    const NO_TAG: Tag = Tag {
        start: 0,
        attributes: 0,
        end_tag: false,
        name: None,
        html_or_body: false,
        formatting: false,
    };
    const DOUBLE: u16 = 1 << State::ValueDoubleQuoted as u16;
    const SINGLE: u16 = 1 << State::ValueSingleQuoted as u16;
    let bytes = html.as_bytes();
    // The candidates: `tags[i]` is meaningful when bit `i` of `live` is set
    // (a bit set instead of `Option`s keeps the per-byte work to the live
    // candidates, usually one).
    let mut tags = [NO_TAG; STATES];
    let mut live = 0u16;
    let mut next = [NO_TAG; STATES];
    let (mut html_body_attributes, mut formatting_attributes) = (0usize, 0usize);
    let mut steps = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        // Where only a `<` (or the closing quote of the one live quoted
        // value) can change anything, jump to it.
        let stop = match live {
            0 => Some(b'<'),
            DOUBLE => Some(b'"'),
            SINGLE => Some(b'\''),
            _ => None,
        };
        if let Some(stop) = stop {
            match bytes[at..].iter().position(|&b| b == b'<' || b == stop) {
                Some(i) => at += i,
                None => break,
            }
        }
        let byte = bytes[at];
        let mut next_live = 0u16;
        let mut pending = live;
        while pending != 0 {
            let from = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            steps += 1;
            let (to, created) = step(ALL[from], byte, tags[from]);
            let Some((to, mut tag)) = to else {
                continue;
            };
            if created {
                tag.attributes += 1;
                html_body_attributes += usize::from(tag.html_or_body);
                formatting_attributes += usize::from(tag.formatting);
                let limit = if tag.attributes > per_tag || html_body_attributes > per_tag {
                    Some(AttributeLimit::PerTag)
                } else if formatting_attributes > formatting {
                    Some(AttributeLimit::Formatting)
                } else {
                    None
                };
                if let Some(limit) = limit {
                    return AttributeScan {
                        keep: tag.start,
                        limit: Some(limit),
                        steps,
                    };
                }
            }
            merge_into(&mut next, &mut next_live, to, tag);
        }
        // Any `<` may open a tag, whatever html5ever's state.
        if byte == b'<' {
            let tag = Tag {
                start: at,
                name: Some(([0; NAME_MAX], 0)),
                ..NO_TAG
            };
            merge_into(&mut next, &mut next_live, State::TagOpen, tag);
        }
        std::mem::swap(&mut tags, &mut next);
        live = next_live;
        at += 1;
    }
    AttributeScan {
        keep: html.len(),
        limit: None,
        steps,
    }
}

/// Puts `tag` in state `to`'s slot, merged with the candidate already there.
fn merge_into(slots: &mut [Tag; STATES], live: &mut u16, to: State, tag: Tag) {
    let i = to.index();
    let bit = 1u16 << i;
    slots[i] = if *live & bit != 0 {
        slots[i].merge(tag)
    } else {
        tag
    };
    *live |= bit;
}

/// html5ever's transition on `byte` (ASCII whitespace includes `\r`,
/// which its input stream turns into `\n`): the next state, or `None` when
/// the candidate is no longer a tag (emitted, or a comment, a doctype, …),
/// and whether an attribute was created.
fn step(state: State, byte: u8, mut tag: Tag) -> (Option<(State, Tag)>, bool) {
    let space = matches!(byte, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let go = |s: State, t: Tag| Some((s, t));
    match state {
        State::TagOpen => match byte {
            b'/' => {
                tag.end_tag = true;
                (go(State::EndTagOpen, tag), false)
            }
            b if b.is_ascii_alphabetic() => {
                tag.push_name(b);
                (go(State::TagName, tag), false)
            }
            _ => (None, false),
        },
        State::EndTagOpen => match byte {
            b if b.is_ascii_alphabetic() => {
                tag.push_name(b);
                (go(State::TagName, tag), false)
            }
            _ => (None, false),
        },
        State::TagName => match byte {
            _ if space => (go(State::BeforeAttrName, tag.named()), false),
            b'/' => (go(State::SelfClosing, tag.named()), false),
            b'>' => (None, false),
            b => {
                tag.push_name(b);
                (go(State::TagName, tag), false)
            }
        },
        State::BeforeAttrName => match byte {
            _ if space => (go(State::BeforeAttrName, tag), false),
            b'/' => (go(State::SelfClosing, tag), false),
            b'>' => (None, false),
            _ => (go(State::AttrName, tag), true),
        },
        State::AttrName => match byte {
            _ if space => (go(State::AfterAttrName, tag), false),
            b'/' => (go(State::SelfClosing, tag), false),
            b'=' => (go(State::BeforeAttrValue, tag), false),
            b'>' => (None, false),
            _ => (go(State::AttrName, tag), false),
        },
        State::AfterAttrName => match byte {
            _ if space => (go(State::AfterAttrName, tag), false),
            b'/' => (go(State::SelfClosing, tag), false),
            b'=' => (go(State::BeforeAttrValue, tag), false),
            b'>' => (None, false),
            _ => (go(State::AttrName, tag), true),
        },
        State::BeforeAttrValue => match byte {
            _ if space => (go(State::BeforeAttrValue, tag), false),
            b'"' => (go(State::ValueDoubleQuoted, tag), false),
            b'\'' => (go(State::ValueSingleQuoted, tag), false),
            b'>' => (None, false),
            _ => (go(State::ValueUnquoted, tag), false),
        },
        State::ValueDoubleQuoted => match byte {
            b'"' => (go(State::AfterValueQuoted, tag), false),
            _ => (go(State::ValueDoubleQuoted, tag), false),
        },
        State::ValueSingleQuoted => match byte {
            b'\'' => (go(State::AfterValueQuoted, tag), false),
            _ => (go(State::ValueSingleQuoted, tag), false),
        },
        State::ValueUnquoted => match byte {
            _ if space => (go(State::BeforeAttrName, tag), false),
            b'>' => (None, false),
            _ => (go(State::ValueUnquoted, tag), false),
        },
        // Anything else is reconsumed in the before-attribute-name state
        // (where whitespace is skipped, `/` self-closes and anything else
        // starts an attribute).
        State::AfterValueQuoted | State::SelfClosing => match byte {
            _ if space => (go(State::BeforeAttrName, tag), false),
            b'/' => (go(State::SelfClosing, tag), false),
            b'>' => (None, false),
            _ => (go(State::AttrName, tag), true),
        },
    }
}
