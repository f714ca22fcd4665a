//! Legitimate mail that looks alarming, and phishing that looks calm: a
//! password reset the user asked for, a new-sign-in alert, a shipping notice
//! with tracking, a calendar invite, a mailing-list digest, a newsletter
//! with tracking links. What kind a group is follows its brand. Links go
//! through the recipient's security gateway where it has one.

use super::ctx::{soft, t, Ctx};
use super::draft::{benign, phish, Draft, HeaderLine, LinkPiece, Piece};
use super::gateway::{gateway, url_text};
use super::slots;

/// Writes the email for the context's role.
pub fn alarming_notice(c: &mut Ctx) -> Draft {
    match c.brand.kind.as_str() {
        "carrier" => shipping(c),
        "collaboration" => calendar(c),
        "it" => digest(c),
        "travel" => newsletter(c),
        _ => security(c),
    }
}

/// The call-to-action link, as the gateway delivers it.
fn cta(c: &mut Ctx, visible: &str, path: &str) -> Piece {
    let link = if c.is_phish() {
        calm_link(c, visible, path)
    } else {
        let link = c.link(visible, path);
        url_text(c, link)
    };
    gateway(c, link)
}

/// From the brand (legitimate), or for a calm lure from a host that claims
/// no brand, under the brand's name when `display_name_mismatch` is drawn:
/// the lookalike, if any, sits in the link, where a gateway hides it.
fn sender(c: &mut Ctx, d: &mut Draft, local: &str, generic: &str) {
    if !c.is_phish() {
        c.brand_sender(d, local, generic);
        return;
    }
    let display = if c.has("display_name_mismatch") {
        c.brand.name.clone()
    } else {
        generic.to_string()
    };
    let domain = slots::neutral_domain(&mut c.rng, false);
    d.from = format!("{display} <{local}@{domain}>");
    if c.has("display_name_mismatch") {
        let value = d.from.clone();
        d.mark_header(HeaderLine::From, &value, phish("display_name_mismatch"));
    }
    if c.chance(45) {
        d.auth = Some(format!(
            "mx.{}; spf=pass smtp.mailfrom={domain}; dkim=pass header.d={domain}",
            c.org.domain
        ));
    }
    c.sender_domain = domain;
}

/// A calm lure's link: on a lookalike of the brand when drawn (else a host
/// that claims nothing), its text claiming the brand's own URL when
/// `link_text_mismatch` is drawn.
fn calm_link(c: &mut Ctx, visible: &str, path: &str) -> Piece {
    let (host, marks) = c.attacker_domain(false);
    let mismatch = c.has("link_text_mismatch");
    Piece::Link(LinkPiece {
        visible: if mismatch {
            format!("https://{}/{path}", c.brand.domain())
        } else {
            visible.to_string()
        },
        href: format!("https://{host}/{path}"),
        whole: if mismatch {
            vec![phish("link_text_mismatch")]
        } else {
            vec![]
        },
        url: vec![],
        host: (!marks.is_empty()).then_some((host, marks)),
    })
}

/// A link whose text is its own URL on the brand's site (legitimate), or
/// the attacker's link with the same text (phishing).
fn url_text_link(c: &mut Ctx, path: &str) -> Piece {
    let shown = format!("https://{}/{path}", c.brand.domain());
    let link = if c.is_phish() {
        calm_link(c, "Open", path)
    } else {
        Piece::Link(LinkPiece {
            visible: shown.clone(),
            href: shown,
            whole: vec![],
            url: vec![benign("aligned_links")],
            host: None,
        })
    };
    gateway(c, link)
}

fn sign(c: &mut Ctx, team: &str) -> Vec<Piece> {
    let bye = c.one(&["Thanks,", "Regards,", "The"]);
    if bye == "The" {
        vec![t(format!("The {team}"))]
    } else {
        vec![t(format!("{bye}\n{team}"))]
    }
}

fn security(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    // Which notice follows the recipient, so both members agree.
    let reset = c.recipient.last.len().is_multiple_of(2);
    let subject = match (reset, c.is_phish()) {
        (true, false) => c.one(&[
            "Password reset requested",
            "Reset your password",
            "Your password reset link",
        ]),
        (true, true) => c.one(&[
            "Your password was changed",
            "Password change confirmation",
            "Your sign-in details were updated",
        ]),
        (false, false) => c.one(&[
            "Security alert: new sign-in",
            "Unusual sign-in activity",
            "New sign-in from an unrecognised device",
        ]),
        (false, true) => c.one(&[
            "Your security settings were updated",
            "Review your recent account changes",
            "Your monthly security summary",
        ]),
    };
    let mut d = c.draft(format!("{name}: {subject}"));
    sender(c, &mut d, "security", "Account Services");
    d.para(vec![t(format!("Hello {},", c.recipient.first))]);
    if c.is_phish() {
        d.para(vec![t(c.one(&[
            "We have made the changes you asked for to your sign-in settings. There is nothing else you need to do.",
            "Here is a short summary of recent changes on your profile. Most customers find it useful to look it over once a month.",
            "Your account details were updated on our new customer platform.",
        ]))]);
        let link = url_text_link(c, "account/summary");
        d.para(vec![t("You can review the details here: "), link]);
        d.para(vec![t("Thank you for banking with us.")]);
    } else if reset {
        let ask = c.clause(
            "credential_request",
            Some(soft::CREDENTIAL_WORDING),
            &["reset your password", "reset the password"],
        );
        let mut first = vec![t("You asked us to ")];
        first.push(ask.unwrap_or_else(|| t("send a new sign-in link")));
        first.push(t(". If that was you, use the link below."));
        d.para(first);
        let link = url_text_link(c, "account/reset");
        d.para(vec![link]);
        let exp = c.clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &[
                "This link expires in 30 minutes",
                "For your protection the link expires in 20 minutes",
            ],
        );
        if let Some(exp) = exp {
            d.para(vec![exp, t(".")]);
        }
        let alarm = c.clause("urgency_threat", Some(soft::ALARM), &[
            "If you did not ask for this, someone may have your password: change it immediately",
            "If this wasn't you, your account may be at risk and you should contact us immediately",
        ]);
        if let Some(alarm) = alarm {
            d.para(vec![alarm, t(".")]);
        }
    } else {
        let alarm = c.clause(
            "urgency_threat",
            Some(soft::ALARM),
            &[
                "We detected unusual sign-in activity",
                "We noticed a suspicious sign-in attempt",
            ],
        );
        let mut first = vec![];
        if let Some(a) = alarm {
            first.push(a);
            first.push(t(". "));
        }
        let city = c.one(&["Lisbon", "Osaka", "Warsaw", "Lagos", "Quito"]);
        first.push(t(format!(
            "A new device signed in to your {name} account near {city} on {}.",
            slots::day(&mut c.rng)
        )));
        d.para(first);
        let exp = c.clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &["If it was not you, secure your account within 24 hours"],
        );
        if let Some(exp) = exp {
            d.para(vec![exp, t(".")]);
        }
        let check = c.clause(
            "credential_request",
            Some(soft::CREDENTIAL_WORDING),
            &[
                "sign in and review your account",
                "log in to secure your account",
                "verify your identity",
            ],
        );
        let mut s = vec![t("If this wasn't you, ")];
        s.push(check.unwrap_or_else(|| t("look over your devices")));
        s.push(t(": "));
        s.push(url_text_link(c, "security/devices"));
        d.para(s);
    }
    let so = sign(c, &format!("{name} Security team"));
    d.para(so);
    c.choose_html(&mut d, true);
    d
}

fn shipping(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let track = slots::reference(&mut c.rng, "TRK", 10);
    let subject = c
        .one(&[
            "Your parcel {t} is on its way",
            "Delivery update for {t}",
            "Shipment {t}: estimated delivery",
        ])
        .replace("{t}", &track);
    let mut d = c.draft(subject);
    sender(c, &mut d, "tracking", "Delivery Updates");
    d.para(vec![t(format!("Hello {},", c.recipient.first))]);
    d.para(vec![t(format!(
        "Parcel {track} left our hub and should arrive on {}.",
        slots::day(&mut c.rng)
    ))]);
    if !c.is_phish() {
        let alarm = c.clause(
            "urgency_threat",
            Some(soft::ALARM),
            &[
                "Final notice: a signature is required on delivery",
                "If nobody is home the parcel will be returned to sender after 5 days",
            ],
        );
        if let Some(a) = alarm {
            d.para(vec![a, t(".")]);
        }
    }
    let link = cta(c, "Track your parcel", &format!("track/{track}"));
    d.para(vec![t("Track it: "), link]);
    let prefs = cta(c, "Delivery preferences", "preferences");
    d.para(vec![t("Change where it is left: "), prefs]);
    let so = sign(c, &format!("{name} team"));
    d.para(so);
    c.choose_html(&mut d, true);
    d
}

fn calendar(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let organiser = c.colleague.full();
    let title = c.one(&[
        "Q3 planning",
        "Security awareness training",
        "Budget review",
        "Incident post-mortem",
    ]);
    let day = slots::day(&mut c.rng);
    let mut d = c.draft(format!("Invitation: {title} @ {day} 10:00-11:00 (UTC)"));
    sender(c, &mut d, "calendar", "Calendar");
    d.para(vec![t(format!("{organiser} has invited you to {title}."))]);
    d.para(vec![t(format!("When: {day}, 10:00-11:00 (UTC)"))]);
    if !c.is_phish() {
        let alarm = c.clause(
            "urgency_threat",
            Some(soft::ALARM),
            &[
                "Attendance is mandatory: this is the final reminder",
                "Final reminder: please reply so the room can be confirmed",
            ],
        );
        if let Some(a) = alarm {
            d.para(vec![a, t(".")]);
        }
    }
    let join = cta(c, "Join meeting", "meet/join");
    d.para(vec![t("Join: "), join]);
    d.para(vec![t(format!(
        "Invitation from {name}. You are receiving this because you are an attendee."
    ))]);
    c.attach(&mut d, "invite.ics", "text/calendar", false);
    c.choose_html(&mut d, true);
    d
}

fn digest(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let list = c.one(&["admins", "security-announce", "ops-community"]);
    let domain = c.brand.domain().to_string();
    let (vol, issue) = (c.rng.int(3, 40), c.rng.int(1, 52));
    let mut d = c.draft(format!("[{list}] Digest, Vol {vol}, Issue {issue}"));
    sender(c, &mut d, &format!("{list}-bounces"), "Mailing list");
    d.para(vec![t(format!("Today's topics in {list}:"))]);
    let topics = [
        "Critical patch released: upgrade immediately",
        "Phishing campaign targeting webmail users",
        "Account lockouts after the policy change",
        "Maintenance window this weekend",
    ];
    for (i, topic) in topics.iter().enumerate() {
        let host = if i % 2 == 0 {
            format!("community.{domain}")
        } else {
            slots::neutral_domain(&mut c.rng, false)
        };
        let href = format!("https://{host}/t/{}", slots::token(&mut c.rng, 6));
        let link = Piece::Link(LinkPiece {
            visible: "Read the thread".into(),
            href,
            whole: vec![],
            url: vec![],
            host: None,
        });
        let link = url_text(c, link);
        let link = gateway(c, link);
        d.para(vec![t(format!("{}. {topic}: ", i + 1)), link]);
    }
    if c.is_phish() {
        let link = cta(c, "Manage your subscription", "lists/manage");
        d.para(vec![
            t("Your list subscription moves to the new archive: "),
            link,
        ]);
    }
    d.para(vec![t(format!(
        "{name} {list} mailing list\nList-Id: <{list}.lists.{domain}>\nTo unsubscribe, send a message to {list}-leave@lists.{domain}"
    ))]);
    c.choose_html(&mut d, true);
    d
}

fn newsletter(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let subject = c.one(&[
        "Last chance: spring offers end tonight",
        "Your monthly travel inspiration",
        "Act now: 30% off selected trips",
    ]);
    let mut d = c.draft(subject);
    sender(c, &mut d, "news", "Newsletter");
    d.para(vec![t(format!("Hi {},", c.recipient.first))]);
    d.para(vec![t("Our favourite trips this month, picked for you.")]);
    for offer in ["City breaks", "Mountain weekends", "Coastal escapes"] {
        let token = slots::token(&mut c.rng, 12);
        let href = if c.is_phish() {
            String::new()
        } else {
            format!("https://click.mailer-hub.example/ls/click?upn={token}")
        };
        let link = if c.is_phish() {
            calm_link(c, offer, "offers")
        } else {
            let link = Piece::Link(LinkPiece {
                visible: offer.to_string(),
                href,
                whole: vec![],
                url: vec![],
                host: None,
            });
            url_text(c, link)
        };
        let link = gateway(c, link);
        let blurb = c.one(&["From $199", "Book by Sunday", "Members save 10%"]);
        d.para(vec![link, t(format!(" ({blurb})"))]);
    }
    d.para(vec![t(format!(
        "You receive this because you subscribed to {name} news. Unsubscribe at any time from your profile."
    ))]);
    c.choose_html(&mut d, true);
    d
}
