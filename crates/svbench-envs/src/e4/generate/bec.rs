//! Business-email compromise with no link and no urgency words: an
//! executive or colleague asks for a favour, a supplier-detail change or a
//! confidential task. The phishing side writes from a lookalike of the
//! recipient organisation's domain or from a free-mail account under the
//! executive's name; the legitimate side writes the same kind of request
//! from the real internal domain. Nothing in the wording decides the label.

use super::ctx::{soft, t, Ctx};
use super::draft::{phish, Draft, HeaderLine, Piece};
use super::invoice::{capitalised, stop};
use super::lang::{self, Bec};
use super::slots;
use super::vendor;

/// Writes the email for the context's role.
pub fn bec_request(c: &mut Ctx) -> Draft {
    let text: &Bec = lang::bec(c.lang);
    let boss = c.colleague.clone();
    let vendor_name = c.vendor.name;
    let amount = slots::amount(&mut c.rng, 2_000, 48_000);
    let fill = |s: &str, name: &str| lang::fill(s, name, vendor_name, &amount, "");
    // The role belongs to the person, so both members of a group agree.
    let roles = ["CEO", "CFO", "Managing Director", "Finance Director", ""];
    let role = roles[(boss.first.len() + boss.last.len()) % roles.len()].to_string();
    let ask = if c.is_phish() {
        if c.has("payment_request") {
            Piece::Marked(
                fill(&c.one(text.phish_money), ""),
                vec![phish("payment_request")],
            )
        } else {
            t(fill(&c.one(text.phish_other), ""))
        }
    } else if c.soft(soft::PAYMENT_WORDING) {
        Piece::Marked(
            fill(&c.one(text.legit_money), ""),
            vec![phish("payment_request")],
        )
    } else {
        t(fill(&c.one(text.legit_other), ""))
    };
    let about_vendor =
        matches!(&ask, Piece::Text(s) | Piece::Marked(s, _) if s.contains(vendor_name));
    let subject = if about_vendor && c.chance(60) {
        fill(&c.one(text.vendor_subjects), "")
    } else {
        c.one(text.subjects)
    };
    let mut d = c.draft(subject);
    if c.is_phish() {
        phish_sender(c, &mut d, &boss, &role);
    } else {
        let local = boss.address(c.org.domain);
        let local = local.split('@').next().unwrap_or_default().to_string();
        c.internal_sender(&mut d, &boss.full(), &local);
    }
    let hello = fill(&c.one(text.hello), &c.recipient.first);
    d.para(vec![t(hello)]);
    let opener = c.one(text.openers);
    let end = stop(&ask);
    d.para(vec![t(format!("{opener} ")), capitalised(ask), t(end)]);
    d.para(vec![t(c.one(text.closers))]);
    let thanks = c.one(text.thanks);
    let signature = if role.is_empty() {
        format!("{thanks}\n{}", boss.first)
    } else {
        format!("{thanks}\n{}\n{role}, {}", boss.first, c.org.name)
    };
    d.para(vec![t(signature)]);
    c.choose_html(&mut d, false);
    d
}

/// The attacker's From (and Reply-To when drawn): a lookalike of the
/// recipient's own domain, or free mail under the executive's name.
fn phish_sender(c: &mut Ctx, d: &mut Draft, boss: &slots::Person, role: &str) {
    let display = if role.is_empty() || c.chance(50) {
        boss.full()
    } else {
        format!("{}, {role}", boss.full())
    };
    let (address, domain) = if c.has("freemail_corporate") {
        let domain = c.one(slots::FREEMAIL);
        let local = format!(
            "{}.{}{}",
            boss.first.to_lowercase(),
            boss.last.to_lowercase(),
            c.rng.int(1, 99)
        );
        (format!("{local}@{domain}"), domain)
    } else {
        // The lookalike is the fallback: the sender is always the tell.
        let domain = vendor::org_lookalike(&mut c.rng, c.org.domain);
        (boss.address(&domain), domain)
    };
    d.from = format!("{display} <{address}>");
    if c.has("freemail_corporate") {
        d.mark_header(HeaderLine::From, &address, phish("freemail_corporate"));
    } else {
        d.mark_header(HeaderLine::From, &domain, phish("lookalike_domain"));
    }
    c.sender_domain = domain.clone();
    if c.has("reply_to_mismatch") {
        let free = c.one(slots::FREEMAIL);
        let reply = if free == domain {
            boss.address(&slots::neutral_domain(&mut c.rng, false))
        } else {
            format!(
                "{}.{}@{free}",
                boss.first.to_lowercase(),
                c.one(&["office", "private", "mobile"])
            )
        };
        d.reply_to = Some(reply.clone());
        d.mark_header(HeaderLine::ReplyTo, &reply, phish("reply_to_mismatch"));
    }
    c.attacker_auth_pass(d, &domain);
}
