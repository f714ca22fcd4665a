//! The container reader both dialects share: arrays, objects, keys,
//! separators and the nesting bound, read without recursion.
//!
//! A dialect supplies only what differs: its value type, its depth limit,
//! how a number becomes a value and which extra literals it reads
//! (Python adds `NaN`/`Infinity` and the integer digit limit) and how a finished array or object becomes a value (Python keeps
//! the last duplicate key, strict JSON keeps and flags them).

use std::borrow::Cow;

use super::lexer::{Lexer, NumberToken};
use super::{JsonError, JsonErrorKind};

/// What one JSON dialect adds to the shared container reader.
pub(super) trait Dialect<'a> {
    /// The value type the dialect builds.
    type Value;
    /// Its object (dict) type.
    type Object;

    /// Deepest array/object nesting accepted; one more `[`/`{` is a
    /// [`JsonErrorKind::TooDeep`] error at that bracket.
    const MAX_DEPTH: usize;

    /// `null`.
    fn null() -> Self::Value;
    /// `true` / `false`.
    fn bool(b: bool) -> Self::Value;
    /// A string.
    fn string(s: Cow<'a, str>) -> Self::Value;
    /// A number token just read (the cursor is after it).
    fn number(lx: &Lexer<'a>, token: NumberToken<'a>) -> Result<Self::Value, JsonError>;
    /// A literal JSON lacks (Python's `NaN`, `Infinity`, `-Infinity`),
    /// consumed when the input continues with one.
    fn extra_literal(_lx: &mut Lexer<'a>) -> Option<Self::Value> {
        None
    }

    /// A finished array. `marked` says whether any item was marked; the
    /// returned flag marks the array itself (see [`Dialect::object`]).
    fn array(items: Vec<Self::Value>, marked: bool) -> (Self::Value, bool);

    /// A finished object, members in input order. `marked` says whether any
    /// member value was marked; the returned flag marks the object for the
    /// containers around it. The strict dialect marks "has a duplicate key
    /// here or below", which the reader thereby carries up without walking
    /// the finished values again.
    fn object(members: Vec<(Cow<'a, str>, Self::Value)>, marked: bool) -> (Self::Value, bool);

    /// The object, if `value` is one.
    fn into_object(value: Self::Value) -> Option<Self::Object>;
}

/// The [`Dialect`] methods that only name a variant of the dialect's value
/// type (`null`, `bool`, `string`, `into_object`), written once: a dialect
/// lists its variant names, e.g.
/// `variant_constructors!(Value { null => Null, bool => Bool, string => String, object => Object });`
/// inside `impl<'a> Dialect<'a>`, whose `'a` the generated methods use.
macro_rules! variant_constructors {
    ($value:ident {
        null => $null:ident,
        bool => $bool:ident,
        string => $string:ident,
        object => $object:ident
    }) => {
        fn null() -> Self::Value {
            $value::$null
        }

        fn bool(b: bool) -> Self::Value {
            $value::$bool(b)
        }

        fn string(s: std::borrow::Cow<'a, str>) -> Self::Value {
            $value::$string(s)
        }

        fn into_object(value: Self::Value) -> Option<Self::Object> {
            match value {
                $value::$object(o) => Some(o),
                _ => None,
            }
        }
    };
}
pub(super) use variant_constructors;

/// `text` as one value of dialect `D`, with optional surrounding whitespace.
pub(super) fn read_document<'a, D: Dialect<'a>>(text: &'a str) -> Result<D::Value, JsonError> {
    let mut lx = Lexer::new(text);
    lx.skip_ws();
    let value = read_value::<D>(&mut lx)?;
    lx.finish()?;
    Ok(value)
}

/// `text` as one value of dialect `D` when that value is an object; `None`
/// for any other value or an error. Input that does not start with `{`
/// (after whitespace) is refused before parsing.
pub(super) fn read_object_document<'a, D: Dialect<'a>>(text: &'a str) -> Option<D::Object> {
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        return None;
    }
    read_document::<D>(text).ok().and_then(D::into_object)
}

/// A container being read: its items so far (and, for an object, the key
/// whose value is being read), and whether any of them was marked.
enum Open<'a, V> {
    Array(Vec<V>, bool),
    Object(Vec<(Cow<'a, str>, V)>, Cow<'a, str>, bool),
}

/// One value at the cursor, containers included. Open containers live on a
/// heap stack, so no input depth can exhaust the call stack; the too-deep
/// bracket is reported before anything after it is read.
fn read_value<'a, D: Dialect<'a>>(lx: &mut Lexer<'a>) -> Result<D::Value, JsonError> {
    let mut open: Vec<Open<'a, D::Value>> = Vec::new();
    loop {
        // The cursor is at the start of a value.
        let (mut value, mut marked) = match lx.peek() {
            Some(b'[' | b'{') if open.len() >= D::MAX_DEPTH => {
                return Err(lx.error(JsonErrorKind::TooDeep));
            }
            Some(b'[') => {
                lx.pos += 1;
                lx.skip_ws();
                if lx.peek() != Some(b']') {
                    open.push(Open::Array(Vec::new(), false));
                    continue;
                }
                lx.pos += 1;
                D::array(Vec::new(), false)
            }
            Some(b'{') => {
                lx.pos += 1;
                lx.skip_ws();
                if lx.peek() != Some(b'}') {
                    let key = read_key(lx)?;
                    open.push(Open::Object(Vec::new(), key, false));
                    continue;
                }
                lx.pos += 1;
                D::object(Vec::new(), false)
            }
            _ => (read_scalar::<D>(lx)?, false),
        };
        // Hand the value to the innermost open container, closing every
        // container that ends right after it.
        loop {
            let Some(top) = open.last_mut() else {
                return Ok(value);
            };
            lx.skip_ws();
            let next = lx.peek();
            match top {
                Open::Array(items, any) => {
                    items.push(value);
                    *any |= marked;
                    match next {
                        Some(b',') => {
                            lx.pos += 1;
                            lx.skip_ws();
                            break;
                        }
                        Some(b']') => lx.pos += 1,
                        _ => return Err(lx.unexpected()),
                    }
                }
                Open::Object(members, key, any) => {
                    members.push((std::mem::take(key), value));
                    *any |= marked;
                    match next {
                        Some(b',') => {
                            lx.pos += 1;
                            lx.skip_ws();
                            *key = read_key(lx)?;
                            break;
                        }
                        Some(b'}') => lx.pos += 1,
                        _ => return Err(lx.unexpected()),
                    }
                }
            }
            (value, marked) = match open.pop() {
                Some(Open::Array(items, any)) => D::array(items, any),
                Some(Open::Object(members, _, any)) => D::object(members, any),
                None => return Err(lx.unexpected()),
            };
        }
    }
}

/// An object key and its `:`, leaving the cursor at the value.
fn read_key<'a>(lx: &mut Lexer<'a>) -> Result<Cow<'a, str>, JsonError> {
    if lx.peek() != Some(b'"') {
        return Err(lx.unexpected());
    }
    let key = lx.string()?;
    lx.skip_ws();
    if lx.peek() != Some(b':') {
        return Err(lx.unexpected());
    }
    lx.pos += 1;
    lx.skip_ws();
    Ok(key)
}

/// A value that is not a container; the cursor is at its first byte.
fn read_scalar<'a, D: Dialect<'a>>(lx: &mut Lexer<'a>) -> Result<D::Value, JsonError> {
    if let Some(value) = D::extra_literal(lx) {
        return Ok(value);
    }
    match lx.peek() {
        Some(b'"') => lx.string().map(D::string),
        Some(b'-' | b'0'..=b'9') => {
            let token = lx.number()?;
            D::number(lx, token)
        }
        Some(b't') if lx.eat(b"true") => Ok(D::bool(true)),
        Some(b'f') if lx.eat(b"false") => Ok(D::bool(false)),
        Some(b'n') if lx.eat(b"null") => Ok(D::null()),
        _ => Err(lx.unexpected()),
    }
}

/// Whether two members share a key: pairwise for small objects, sorted for
/// large ones so a hostile object with many keys stays O(n log n).
pub(super) fn has_duplicate_key<V>(members: &[(Cow<'_, str>, V)]) -> bool {
    const PAIRWISE_MAX: usize = 12;
    if members.len() <= PAIRWISE_MAX {
        members
            .iter()
            .enumerate()
            .any(|(i, (k, _))| members[..i].iter().any(|(other, _)| other == k))
    } else {
        let mut keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    }
}
