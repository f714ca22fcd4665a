//! Invoice fraud from lookalikes of real-looking vendors: polite, no
//! urgency, a PDF attached. The phishing side writes from a lookalike of the
//! vendor's domain and moves the payment to a new account; the legitimate
//! side is the vendor's own invoice from its real domain. The vendors are not
//! in any brand list, so only the sender decides.

use super::ctx::{soft, t, Ctx};
use super::draft::{benign, phish, Draft, HeaderLine, LinkPiece, Piece};
use super::gateway::{gateway, url_text};
use super::lang::{self, Invoice};
use super::slots;
use super::vendor;

/// Writes the email for the context's role.
pub fn vendor_invoice(c: &mut Ctx) -> Draft {
    let text: &Invoice = lang::invoice(c.lang);
    let vendor = c.vendor;
    let reference = slots::reference(&mut c.rng, "INV-", 6);
    let amount = slots::amount(&mut c.rng, 600, 38_000);
    let fill = |s: &str, name: &str| lang::fill(s, name, vendor.name, &amount, &reference);
    let subject = fill(&c.one(text.subjects), "");
    let mut d = c.draft(subject);
    let clerk = slots::Person::draw(&mut c.rng);
    let local = c.one(&["accounts", "billing", "invoices", "ar"]);
    let display = format!(
        "{} {}",
        vendor.name,
        c.one(&["Accounts", "Billing", "Finance"])
    );
    if c.is_phish() {
        let domain = vendor.lookalike(&mut c.rng);
        d.from = format!("{display} <{local}@{domain}>");
        d.mark_header(HeaderLine::From, &domain, phish("lookalike_domain"));
        if c.has("reply_to_mismatch") {
            let reply = clerk.address(&c.one(slots::FREEMAIL));
            d.reply_to = Some(reply.clone());
            d.mark_header(HeaderLine::ReplyTo, &reply, phish("reply_to_mismatch"));
        }
        c.attacker_auth_pass(&mut d, &domain);
        c.sender_domain = domain;
    } else {
        let domain = vendor.domain;
        d.from = format!("{display} <{local}@{domain}>");
        let segment = format!("spf=pass smtp.mailfrom={domain}; dkim=pass header.d={domain}");
        d.auth = Some(format!("mx.{}; {segment}", c.org.domain));
        d.mark_header(HeaderLine::Auth, &segment, benign("auth_aligned_pass"));
        if c.soft(soft::PLATFORM_REPLY_TO) {
            vendor::platform_reply_to(c, &mut d);
        }
        c.sender_domain = domain.to_string();
    }
    let hello = fill(&c.one(text.hello), &c.recipient.first);
    d.para(vec![t(hello)]);
    let intro = fill(&c.one(text.intro), "").replace("{goods}", vendor.goods);
    d.para(vec![t(intro)]);
    let line = if c.is_phish() {
        c.has("payment_request").then(|| {
            Piece::Marked(
                fill(&c.one(text.phish_money), ""),
                vec![phish("payment_request")],
            )
        })
    } else if c.soft(soft::PAYMENT_WORDING) {
        Some(Piece::Marked(
            fill(&c.one(text.legit_money), ""),
            vec![phish("payment_request")],
        ))
    } else {
        Some(t(fill(&c.one(text.legit_plain), "")))
    };
    if let Some(line) = line {
        d.para(vec![capitalised(line), t(".")]);
    }
    let link = !c.is_phish() && c.chance(50);
    if link {
        let href = format!("https://portal.{}/invoices/{reference}", vendor.domain);
        let link = Piece::Link(LinkPiece {
            visible: reference.clone(),
            href,
            whole: vec![],
            url: vec![benign("aligned_links")],
            host: None,
        });
        let link = url_text(c, link);
        d.para(vec![t(c.one(text.portal)), gateway(c, link)]);
    }
    d.para(vec![t(c.one(text.closers))]);
    let regards = c.one(text.regards);
    d.para(vec![t(format!(
        "{regards}\n{}\n{}, {}",
        clerk.full(),
        text.department,
        vendor.name
    ))]);
    c.attach(
        &mut d,
        &format!("{reference}.pdf"),
        "application/pdf",
        false,
    );
    c.choose_html(&mut d, link);
    d
}

/// `piece` with its first letter upper-cased (after an opening `¿`).
pub fn capitalised(piece: Piece) -> Piece {
    let up = |s: String| match s.char_indices().find(|(_, ch)| ch.is_alphabetic()) {
        Some((i, ch)) => {
            let rest = &s[i + ch.len_utf8()..];
            format!("{}{}{rest}", &s[..i], ch.to_uppercase())
        }
        None => s,
    };
    match piece {
        Piece::Text(s) => Piece::Text(up(s)),
        Piece::Marked(s, m) => Piece::Marked(up(s), m),
        other => other,
    }
}

/// The full stop a sentence ends with, unless it is a question.
pub fn stop(piece: &Piece) -> &'static str {
    match piece {
        Piece::Text(s) | Piece::Marked(s, _) if s.ends_with('?') => "",
        _ => ".",
    }
}
