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
    fn name_done(&mut self) {
        if let Some((buf, len)) = self.name {
            let name = &buf[..len];
            if !self.end_tag {
                self.html_or_body = self.html_or_body || name == b"html" || name == b"body";
                self.formatting = self.formatting || FORMATTING.contains(&name);
            }
        }
    }
}

/// An empty slot.
const NO_TAG: Tag = Tag {
    start: 0,
    attributes: 0,
    end_tag: false,
    name: None,
    html_or_body: false,
    formatting: false,
};

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
    const DOUBLE: u16 = 1 << State::ValueDoubleQuoted as u16;
    const SINGLE: u16 = 1 << State::ValueSingleQuoted as u16;
    let bytes = html.as_bytes();
    let mut counter = Counter {
        per_tag,
        formatting,
        html_body_attributes: 0,
        formatting_attributes: 0,
    };
    // The candidates: slot `i` is meaningful when bit `i` of `live` is set
    // (a bit set instead of `Option`s keeps the per-byte work to the live
    // candidates, usually one). Two sets of slots are used in turn (this
    // byte's and the next's), so moving on costs a flag, not a copy.
    let mut slots = [[NO_TAG; STATES]; 2];
    let mut cur = 0usize;
    let mut live = 0u16;
    let mut steps = 0usize;
    let mut at = 0;
    let cut = |tag: &Tag, limit, steps| AttributeScan {
        keep: tag.start,
        limit: Some(limit),
        steps,
    };
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
            match memchr::memchr2(b'<', stop, &bytes[at..]) {
                Some(i) => at += i,
                None => break,
            }
        }
        // One candidate and no `<` (most bytes inside a tag): step it in
        // place until a `<`, a quoted value (skipped above) or its end.
        if live.is_power_of_two() && bytes[at] != b'<' {
            let mut state = ALL[live.trailing_zeros() as usize];
            let mut tag = slots[cur][state.index()];
            let mut alive = true;
            while at < bytes.len() && bytes[at] != b'<' {
                steps += 1;
                let Some((to, created)) = step(state, bytes[at], &mut tag) else {
                    alive = false;
                    at += 1;
                    break;
                };
                if created {
                    if let Some(limit) = counter.attribute(&mut tag) {
                        return cut(&tag, limit, steps);
                    }
                }
                state = to;
                at += 1;
                if matches!(state, State::ValueDoubleQuoted | State::ValueSingleQuoted) {
                    break;
                }
            }
            live = if alive {
                slots[cur][state.index()] = tag;
                1 << state.index()
            } else {
                0
            };
            continue;
        }
        let byte = bytes[at];
        let [a, b] = &mut slots;
        let (tags, next) = if cur == 0 { (&*a, b) } else { (&*b, a) };
        let mut next_live = 0u16;
        let mut pending = live;
        while pending != 0 {
            let from = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            steps += 1;
            let mut tag = tags[from];
            let Some((to, created)) = step(ALL[from], byte, &mut tag) else {
                continue;
            };
            if created {
                if let Some(limit) = counter.attribute(&mut tag) {
                    return cut(&tag, limit, steps);
                }
            }
            merge_into(next, &mut next_live, to, tag);
        }
        // Any `<` may open a tag, whatever html5ever's state.
        if byte == b'<' {
            let tag = Tag {
                start: at,
                name: Some(([0; NAME_MAX], 0)),
                ..NO_TAG
            };
            merge_into(next, &mut next_live, State::TagOpen, tag);
        }
        cur ^= 1;
        live = next_live;
        at += 1;
    }
    AttributeScan {
        keep: html.len(),
        limit: None,
        steps,
    }
}

/// Attribute counts against the limits.
struct Counter {
    per_tag: usize,
    formatting: usize,
    html_body_attributes: usize,
    formatting_attributes: usize,
}

impl Counter {
    /// `tag` created an attribute: the limit that passes, if one does.
    fn attribute(&mut self, tag: &mut Tag) -> Option<AttributeLimit> {
        tag.attributes += 1;
        self.html_body_attributes += usize::from(tag.html_or_body);
        self.formatting_attributes += usize::from(tag.formatting);
        if tag.attributes > self.per_tag || self.html_body_attributes > self.per_tag {
            Some(AttributeLimit::PerTag)
        } else if self.formatting_attributes > self.formatting {
            Some(AttributeLimit::Formatting)
        } else {
            None
        }
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
/// which its input stream turns into `\n`), updating `tag`: the next state
/// and whether an attribute was created, or `None` when the candidate is no
/// longer a tag (emitted, or a comment, a doctype, …).
fn step(state: State, byte: u8, tag: &mut Tag) -> Option<(State, bool)> {
    let space = matches!(byte, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let go = |s: State| Some((s, false));
    let create = Some((State::AttrName, true));
    match state {
        State::TagOpen => match byte {
            b'/' => {
                tag.end_tag = true;
                go(State::EndTagOpen)
            }
            b if b.is_ascii_alphabetic() => {
                tag.push_name(b);
                go(State::TagName)
            }
            _ => None,
        },
        State::EndTagOpen => match byte {
            b if b.is_ascii_alphabetic() => {
                tag.push_name(b);
                go(State::TagName)
            }
            _ => None,
        },
        State::TagName => match byte {
            _ if space => {
                tag.name_done();
                go(State::BeforeAttrName)
            }
            b'/' => {
                tag.name_done();
                go(State::SelfClosing)
            }
            b'>' => None,
            b => {
                tag.push_name(b);
                go(State::TagName)
            }
        },
        State::BeforeAttrName => match byte {
            _ if space => go(State::BeforeAttrName),
            b'/' => go(State::SelfClosing),
            b'>' => None,
            _ => create,
        },
        State::AttrName => match byte {
            _ if space => go(State::AfterAttrName),
            b'/' => go(State::SelfClosing),
            b'=' => go(State::BeforeAttrValue),
            b'>' => None,
            _ => go(State::AttrName),
        },
        State::AfterAttrName => match byte {
            _ if space => go(State::AfterAttrName),
            b'/' => go(State::SelfClosing),
            b'=' => go(State::BeforeAttrValue),
            b'>' => None,
            _ => create,
        },
        State::BeforeAttrValue => match byte {
            _ if space => go(State::BeforeAttrValue),
            b'"' => go(State::ValueDoubleQuoted),
            b'\'' => go(State::ValueSingleQuoted),
            b'>' => None,
            _ => go(State::ValueUnquoted),
        },
        State::ValueDoubleQuoted => match byte {
            b'"' => go(State::AfterValueQuoted),
            _ => go(State::ValueDoubleQuoted),
        },
        State::ValueSingleQuoted => match byte {
            b'\'' => go(State::AfterValueQuoted),
            _ => go(State::ValueSingleQuoted),
        },
        State::ValueUnquoted => match byte {
            _ if space => go(State::BeforeAttrName),
            b'>' => None,
            _ => go(State::ValueUnquoted),
        },
        // Anything else is reconsumed in the before-attribute-name state
        // (where whitespace is skipped, `/` self-closes and anything else
        // starts an attribute).
        State::AfterValueQuoted | State::SelfClosing => match byte {
            _ if space => go(State::BeforeAttrName),
            b'/' => go(State::SelfClosing),
            b'>' => None,
            _ => create,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pass without its shortcuts (no skipping, no single-candidate
    /// loop): every live candidate stepped at every byte.
    fn reference(html: &str, per_tag: usize, formatting: usize) -> (usize, Option<AttributeLimit>) {
        let none = NO_TAG;
        let mut counter = Counter {
            per_tag,
            formatting,
            html_body_attributes: 0,
            formatting_attributes: 0,
        };
        let mut tags = [none; STATES];
        let mut live = 0u16;
        for (at, &byte) in html.as_bytes().iter().enumerate() {
            let mut next = [none; STATES];
            let mut next_live = 0u16;
            for from in 0..STATES {
                if live & (1 << from) == 0 {
                    continue;
                }
                let mut tag = tags[from];
                let Some((to, created)) = step(ALL[from], byte, &mut tag) else {
                    continue;
                };
                if created {
                    if let Some(limit) = counter.attribute(&mut tag) {
                        return (tag.start, Some(limit));
                    }
                }
                merge_into(&mut next, &mut next_live, to, tag);
            }
            if byte == b'<' {
                let tag = Tag {
                    start: at,
                    name: Some(([0; NAME_MAX], 0)),
                    ..none
                };
                merge_into(&mut next, &mut next_live, State::TagOpen, tag);
            }
            tags = next;
            live = next_live;
        }
        (html.len(), None)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn the_shortcuts_change_nothing(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("<"), Just(">"), Just("/"), Just("="), Just("\""), Just("'"),
                    Just(" "), Just("\n"), Just("a"), Just("b"), Just("body"), Just("font"),
                    Just("x"), Just("é"), Just("<b "), Just("<p a=\""), Just("</"),
                ],
                0..120,
            ),
            per_tag in 1usize..6,
            formatting in 1usize..10,
        ) {
            let html: String = pieces.concat();
            let scan = scan_attributes(&html, per_tag, formatting);
            prop_assert_eq!((scan.keep, scan.limit), reference(&html, per_tag, formatting));
        }
    }
}
