//! MIME and RFC 5322 through `mail-parser`: the headers the model needs
//! (RFC 2047 decoded), the first HTML and plain-text bodies, attachments
//! listed by name, type and size, never inlined. Malformed MIME is read as
//! mail clients read it ([`lenient`]): the only text part of a message is
//! never demoted to an attachment.

mod lenient;

use mail_parser::{Address, Message, MessageParser, MessagePart, MimeHeaders, PartType};

use super::render::human_size;
use super::EmailLimits;

/// Why a message could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum EmailError {
    /// Larger than [`EmailLimits::max_message_bytes`].
    #[error("message is {size} bytes, more than the limit of {limit}")]
    TooLarge {
        /// Bytes in the message.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Empty input, or nothing `mail-parser` recognises as a message.
    #[error("not an RFC 5322 message")]
    NotAMessage,
}

/// The headers rendered to the model, decoded, folding whitespace collapsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    /// `Display Name <addr>`, or the address alone (adjacent encoded words
    /// joined without a space, also inside quotes).
    pub from: Option<String>,
    /// As `from`.
    pub reply_to: Option<String>,
    /// The bare address of `Return-Path`.
    pub return_path: Option<String>,
    /// Every recipient, as `from`, joined by `, `.
    pub to: Option<String>,
    /// The `Date` header as written, whitespace collapsed.
    pub date: Option<String>,
    /// Decoded subject.
    pub subject: Option<String>,
    /// Without angle brackets.
    pub message_id: Option<String>,
    /// The first `Authentication-Results` header, encoded words decoded.
    pub authentication_results: Option<String>,
    /// `List-Id` as written (mailing-list mail): read by the indicators,
    /// not rendered.
    pub list_id: Option<String>,
}

impl Headers {
    /// The header names kept, as messages spell them.
    pub const NAMES: [&'static str; 9] = [
        "From",
        "Reply-To",
        "Return-Path",
        "To",
        "Date",
        "Subject",
        "Message-ID",
        "Authentication-Results",
        "List-Id",
    ];

    /// Each kept header with its value, in [`Headers::NAMES`] order.
    #[must_use]
    pub fn fields(&self) -> [(&'static str, Option<&str>); 9] {
        let [from, reply_to, return_path, to, date, subject, message_id, auth, list_id] =
            Self::NAMES;
        [
            (from, self.from.as_deref()),
            (reply_to, self.reply_to.as_deref()),
            (return_path, self.return_path.as_deref()),
            (to, self.to.as_deref()),
            (date, self.date.as_deref()),
            (subject, self.subject.as_deref()),
            (message_id, self.message_id.as_deref()),
            (auth, self.authentication_results.as_deref()),
            (list_id, self.list_id.as_deref()),
        ]
    }

    /// The slot of a kept header, by name (ASCII case-insensitive).
    pub fn slot_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        let i = Self::NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))?;
        Some(match i {
            0 => &mut self.from,
            1 => &mut self.reply_to,
            2 => &mut self.return_path,
            3 => &mut self.to,
            4 => &mut self.date,
            5 => &mut self.subject,
            6 => &mut self.message_id,
            7 => &mut self.authentication_results,
            _ => &mut self.list_id,
        })
    }
}

/// An attachment, listed rather than inlined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// File name (`unnamed` when the part gives none).
    pub name: String,
    /// `type/subtype`, lower case (`application/octet-stream` when absent).
    pub mime_type: String,
    /// Decoded size in bytes.
    pub size: u64,
}

/// A parsed email: what rendering and the indicator extractor read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Email {
    /// The rendered headers.
    pub headers: Headers,
    /// The first `text/plain` body part (or, when the message has no other
    /// body, its first unnamed `text/*` part); `[undecodable part: …]` when
    /// it could not be decoded.
    pub text: Option<String>,
    /// The first `text/html` body part (also one whose `Content-Type` lost
    /// its `;`), or the same note.
    pub html: Option<String>,
    /// Every attachment.
    pub attachments: Vec<Attachment>,
}

/// Parse one raw RFC 5322 message within `limits`.
pub fn parse_message(raw: &[u8], limits: &EmailLimits) -> Result<Email, EmailError> {
    if raw.len() > limits.max_message_bytes {
        return Err(EmailError::TooLarge {
            size: raw.len(),
            limit: limits.max_message_bytes,
        });
    }
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(EmailError::NotAMessage);
    }
    let first = MessageParser::default()
        .parse(raw)
        .ok_or(EmailError::NotAMessage)?;
    // A `Content-Type` missing its `;` hides a multipart's boundary (and a
    // part's charset): parse once more with it put back.
    let broken = first
        .parts
        .iter()
        .any(|p| lenient::type_was_repaired(p.content_type()));
    let repaired = broken.then(|| lenient::repair_content_types(raw)).flatten();
    let message = match &repaired {
        Some(bytes) => MessageParser::default()
            .parse(bytes)
            .ok_or(EmailError::NotAMessage)?,
        None => first,
    };
    let headers = Headers {
        from: address_header(&message, "From", message.from()),
        reply_to: address_header(&message, "Reply-To", message.reply_to()),
        return_path: message.return_address().map(collapse),
        to: address_header(&message, "To", message.to()),
        date: message.header_raw("Date").map(collapse),
        subject: subject(&message).map(|s| collapse(&s)),
        message_id: message.message_id().map(collapse),
        authentication_results: message
            .header_raw("Authentication-Results")
            .map(|v| collapse(&lenient::decode_encoded_words(v))),
        list_id: message.header_raw("List-Id").map(collapse),
    };
    let mut email = Email {
        headers,
        ..Email::default()
    };
    let raw = message.raw_message();
    for id in message.html_body.iter().chain(&message.text_body) {
        let Some(part) = message.part(*id) else {
            continue;
        };
        match &part.body {
            PartType::Html(html) if email.html.is_none() => {
                email.html = Some(body_text(raw, part, html));
            }
            PartType::Text(text) if email.text.is_none() => {
                email.text = Some(body_text(raw, part, text));
            }
            _ => {}
        }
    }
    let taken = take_unnamed_text_parts(&message, &mut email);
    for part in message
        .attachments
        .iter()
        .filter(|id| !taken.contains(id))
        .filter_map(|id| message.part(*id))
    {
        let mime_type = part
            .content_type()
            .map(|ct| match ct.subtype() {
                Some(sub) => format!("{}/{}", ct.ctype(), sub),
                None => ct.ctype().to_string(),
            })
            .unwrap_or_else(|| "application/octet-stream".to_string())
            .to_ascii_lowercase();
        email.attachments.push(Attachment {
            name: part
                .attachment_name()
                .map(collapse)
                .unwrap_or_else(|| "unnamed".to_string()),
            mime_type,
            size: part.len() as u64,
        });
    }
    Ok(email)
}

/// A body part's text: as `mail-parser` decoded it, or decoded again from
/// the raw bytes when it could not (a base64 body with text after it), or
/// when its `Content-Type` needed repair (its charset was lost); a note in
/// place of text that cannot be decoded.
fn body_text(raw: &[u8], part: &MessagePart<'_>, decoded: &str) -> String {
    let redo = part.is_encoding_problem || lenient::type_was_repaired(part.content_type());
    if !redo && !lenient::undecodable(decoded) {
        return decoded.to_string();
    }
    let ty = lenient::part_type(part.content_type());
    let text = if redo {
        lenient::decode_part(raw, part, ty.charset.as_deref())
    } else {
        decoded.to_string()
    };
    readable_or_note(text, raw, part, &ty)
}

/// `text` when it reads as text; else the part decoded as windows-1252
/// (what mail clients fall back to for 8-bit text in the wrong charset)
/// when that does; else the undecodable note.
fn readable_or_note(
    text: String,
    raw: &[u8],
    part: &MessagePart<'_>,
    ty: &lenient::PartType,
) -> String {
    if !lenient::undecodable(&text) {
        return text;
    }
    let latin = lenient::decode_part(raw, part, Some("windows-1252"));
    if lenient::undecodable(&latin) {
        undecodable_note(&ty.mime, raw, part)
    } else {
        latin
    }
}

/// `[undecodable part: text/html, 3 KB]`, sized by the part's raw bytes.
fn undecodable_note(mime: &str, raw: &[u8], part: &MessagePart<'_>) -> String {
    let size = (part.raw_end_offset() as usize)
        .min(raw.len())
        .saturating_sub(part.raw_body_offset() as usize);
    format!("[undecodable part: {mime}, {}]", human_size(size as u64))
}

/// Text parts `mail-parser` listed as attachments although nothing names
/// them one (no file name, not `Content-Disposition: attachment`) — a
/// `Content-Type` missing its `;`, an encoding it could not undo — taken as
/// the HTML or plain body that is missing; when neither is found, the first
/// such `text/*` part is the plain body. Returns the part ids taken.
fn take_unnamed_text_parts(message: &Message<'_>, email: &mut Email) -> Vec<u32> {
    let mut taken = Vec::new();
    if email.html.is_some() && email.text.is_some() {
        return taken;
    }
    let raw = message.raw_message();
    let candidates = message.attachments.iter().filter_map(|id| {
        let part = message.part(*id)?;
        let unnamed = part.attachment_name().is_none()
            && !part
                .content_disposition()
                .is_some_and(|d| d.is_attachment())
            && matches!(
                part.body,
                PartType::Text(_)
                    | PartType::Html(_)
                    | PartType::Binary(_)
                    | PartType::InlineBinary(_)
            );
        let ty = lenient::part_type(part.content_type());
        (unnamed && ty.mime.starts_with("text/")).then_some((*id, part, ty))
    });
    let mut other: Option<(u32, &MessagePart<'_>, lenient::PartType)> = None;
    for (id, part, ty) in candidates {
        let slot = match ty.mime.as_str() {
            "text/html" => &mut email.html,
            "text/plain" => &mut email.text,
            _ => {
                other.get_or_insert((id, part, ty));
                continue;
            }
        };
        if slot.is_none() {
            *slot = Some(decode_or_note(raw, part, &ty));
            taken.push(id);
        }
    }
    if email.html.is_none() && email.text.is_none() {
        if let Some((id, part, ty)) = other {
            email.text = Some(decode_or_note(raw, part, &ty));
            taken.push(id);
        }
    }
    taken
}

fn decode_or_note(raw: &[u8], part: &MessagePart<'_>, ty: &lenient::PartType) -> String {
    let text = lenient::decode_part(raw, part, ty.charset.as_deref());
    readable_or_note(text, raw, part, ty)
}

/// An address header's mailboxes; parsed again with adjacent encoded words
/// joined when `mail-parser` would have put a space between them.
fn address_header(
    message: &Message<'_>,
    name: &str,
    parsed: Option<&Address<'_>>,
) -> Option<String> {
    if let Some(raw) = message.header_raw(name) {
        if let std::borrow::Cow::Owned(joined) = lenient::join_encoded_words(raw) {
            let header = format!("{name}: {}\r\n\r\n", joined.trim());
            let reparsed = MessageParser::default().parse(header.as_bytes());
            let address = reparsed.as_ref().and_then(|m| match name {
                "From" => m.from(),
                "Reply-To" => m.reply_to(),
                _ => m.to(),
            });
            if let Some(rendered) = address.and_then(addresses) {
                return Some(rendered);
            }
        }
    }
    parsed.and_then(addresses)
}

/// The subject: encoded words decoded here when there are any (RFC 2047,
/// adjacent ones joined, text next to them kept as written), else as
/// `mail-parser` read it.
fn subject(message: &Message<'_>) -> Option<String> {
    match message.header_raw("Subject") {
        Some(raw) if raw.contains("=?") => Some(lenient::decode_encoded_words(raw)),
        _ => message.subject().map(str::to_string),
    }
}

/// Every mailbox of an address header, `Name <addr>` or `addr`, joined by `, `.
fn addresses(address: &Address<'_>) -> Option<String> {
    let rendered: Vec<String> = address
        .iter()
        .filter_map(|a| {
            let addr = a.address().map(collapse).filter(|s| !s.is_empty());
            let name = a.name().map(collapse).filter(|s| !s.is_empty());
            match (name, addr) {
                (Some(n), Some(a)) => Some(format!("{n} <{a}>")),
                (None, Some(a)) => Some(a),
                (Some(n), None) => Some(n),
                (None, None) => None,
            }
        })
        .collect();
    (!rendered.is_empty()).then(|| rendered.join(", "))
}

/// Folding and runs of whitespace collapsed to one space, trimmed.
pub(super) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
