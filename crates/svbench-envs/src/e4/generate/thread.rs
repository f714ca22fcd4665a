//! Thread hijack: a `Re:` reply with quoted history (`On <date>, <name>
//! wrote:` and `>`-quoted lines) in a real-looking thread with a vendor.
//! The phishing side continues the thread from a lookalike of the vendor's
//! domain (sometimes with a changed Reply-To) and sends a document or
//! payment link; the legitimate side is the vendor contact's genuine reply.
//! The quoted text is the recipient's own, alarm words included, on both
//! sides.

use super::ctx::{soft, t, Ctx};
use super::draft::{benign, phish, Draft, HeaderLine, LinkPiece, Piece};
use super::gateway::{gateway, url_text};
use super::invoice::capitalised;
use super::slots;
use super::vendor;

const TOPICS: &[&str] = &[
    "Revised quote for {po}",
    "Delivery schedule for {po}",
    "Contract renewal",
    "Open items on {po}",
    "Updated price list",
];

/// What the recipient wrote before (quoted; never an indicator).
const QUOTED: &[&str] = &[
    "Thanks for the call earlier. Could you send the revised figures by end of the week?\nFinance needs them before the quarter closes.",
    "We are still waiting on the signed copy. Please send it when you can,\nwe cannot release the order without it.",
    "Can you confirm the delivery dates for the second batch?\nOur warehouse needs a final notice of the slot two days ahead.",
    "Attached is our feedback on the draft. Let me know what you think\nand whether the pricing can still change.",
];

const REPLIES: &[&str] = &[
    "Thanks for your patience. The updated documents are ready",
    "As promised, here is the revised version with the changes you asked for",
    "Sorry for the delay on our side. Everything is now signed",
    "Following up on your note below, the final figures are ready",
];

/// Writes the email for the context's role.
pub fn thread_hijack(c: &mut Ctx) -> Draft {
    let vendor = c.vendor;
    let contact = c.colleague.clone();
    let po = slots::reference(&mut c.rng, "PO-", 5);
    let topic = c.one(TOPICS).replace("{po}", &po);
    let mut d = c.draft(format!("Re: {topic}"));
    let display = contact.full();
    let real = contact.address(vendor.domain);
    let domain = if c.is_phish() {
        let domain = vendor.lookalike(&mut c.rng);
        d.from = format!("{display} <{}>", contact.address(&domain));
        d.mark_header(HeaderLine::From, &domain, phish("lookalike_domain"));
        if c.has("reply_to_mismatch") {
            let free = c.one(slots::FREEMAIL);
            let reply = format!(
                "{}.{}@{free}",
                contact.first.to_lowercase(),
                contact.last.to_lowercase()
            );
            d.reply_to = Some(reply.clone());
            d.mark_header(HeaderLine::ReplyTo, &reply, phish("reply_to_mismatch"));
        }
        c.attacker_auth_pass(&mut d, &domain);
        domain
    } else {
        d.from = format!("{display} <{real}>");
        let domain = vendor.domain.to_string();
        if c.chance(60) {
            let segment = format!("spf=pass smtp.mailfrom={domain}; dkim=pass header.d={domain}");
            d.auth = Some(format!("mx.{}; {segment}", c.org.domain));
            d.mark_header(HeaderLine::Auth, &segment, benign("auth_aligned_pass"));
        }
        if c.soft(soft::PLATFORM_REPLY_TO) {
            vendor::platform_reply_to(c, &mut d);
        }
        domain
    };
    c.sender_domain = domain.clone();
    d.para(vec![t(format!("Hi {},", c.recipient.first))]);
    let reply = c.one(REPLIES);
    let mut has_link = false;
    if c.is_phish() && c.has("payment_request") {
        d.para(vec![
            t(format!("{reply}. ")),
            capitalised(Piece::Marked(
                c.one(&[
                    "please note the payment for this order should go to our new account, details in the remittance form",
                    "our bank details have changed since the last order, the new ones are in the remittance form",
                    "for this order please remit to the account in the updated payment form rather than the one on file",
                ]),
                vec![phish("payment_request")],
            )),
            t(": "),
            {
                let link = phish_link(c, &domain, "remittance");
                gateway(c, link)
            },
        ]);
        has_link = true;
    } else if c.is_phish() {
        d.para(vec![t(format!("{reply}. You can open them here: ")), {
            let link = phish_link(c, &domain, "documents");
            gateway(c, link)
        }]);
        has_link = true;
    } else if c.chance(50) {
        let href = format!(
            "https://files.{}/s/{}",
            vendor.domain,
            slots::token(&mut c.rng, 8)
        );
        let link = Piece::Link(LinkPiece {
            visible: "Shared folder".into(),
            href,
            whole: vec![],
            url: vec![benign("aligned_links")],
            host: None,
        });
        let link = url_text(c, link);
        d.para(vec![
            t(format!("{reply}. You can open them here: ")),
            gateway(c, link),
        ]);
        has_link = true;
    } else {
        d.para(vec![t(format!("{reply}. They are attached."))]);
        c.attach(&mut d, &format!("{po}.pdf"), "application/pdf", false);
    }
    d.para(vec![t(format!(
        "Best,\n{}\n{}",
        contact.first, vendor.name
    ))]);
    let when = earlier(&d.date, c.rng.int(3_600, 6 * 86_400) as i64);
    let quoted: String = c.one(QUOTED).lines().map(|l| format!("> {l}\n")).collect();
    d.para(vec![t(format!(
        "On {when}, {} <{}> wrote:\n{quoted}>\n> {}",
        c.recipient.full(),
        c.recipient.address(c.org.domain),
        c.recipient.first
    ))]);
    // Quoted history reads as plain text; a link trick needs HTML.
    d.html = c.has("link_text_mismatch") || (has_link && c.chance(40));
    d
}

/// The attacker's document link: on the lookalike itself or on an unrelated
/// host, its text sometimes claiming the vendor's real file share.
fn phish_link(c: &mut Ctx, lookalike: &str, path: &str) -> Piece {
    let token = slots::token(&mut c.rng, 8);
    let (href, host) = if c.chance(50) {
        (
            format!("https://{lookalike}/{path}/{token}"),
            Some((lookalike.to_string(), vec![phish("lookalike_domain")])),
        )
    } else {
        let host = slots::neutral_domain(&mut c.rng, false);
        (format!("https://{host}/{path}/{token}"), None)
    };
    let mismatch = c.has("link_text_mismatch");
    let visible = if mismatch {
        format!("https://files.{}/{path}", c.vendor.domain)
    } else {
        "Shared folder".to_string()
    };
    Piece::Link(LinkPiece {
        visible,
        href,
        whole: if mismatch {
            vec![phish("link_text_mismatch")]
        } else {
            vec![]
        },
        url: vec![],
        host,
    })
}

/// The RFC 5322 date `seconds` before `date`, as a quote header writes it
/// (`Tue, 15 Jul 2025 18:13`); `date` itself if it does not parse.
fn earlier(date: &str, seconds: i64) -> String {
    chrono::DateTime::parse_from_rfc2822(date).map_or_else(
        |_| date.to_string(),
        |d| {
            (d - chrono::Duration::seconds(seconds))
                .format("%a, %d %b %Y %H:%M")
                .to_string()
        },
    )
}
