//! Genuinely ambiguous items (spec §3.1): per family, a surface that a
//! legitimate and a phishing scenario both produce byte for byte. The
//! scenarios differ only in facts the email does not show (who really holds
//! the sending account, whether the new vendor exists), drawn from their own
//! seeds; the surface comes from a seed they share.

use super::ctx::{t, Ctx};
use super::draft::{phish, Draft, LinkPiece, Piece};
use super::slots::{self, Person};

/// One ambiguous construction.
#[derive(Debug)]
pub struct Archetype {
    /// Stable id (`meta.archetype`).
    pub id: &'static str,
    /// The family whose surface it shares.
    pub family: &'static str,
    /// Writes the shared surface.
    pub surface: fn(&mut Ctx) -> Draft,
    /// What is true when the email is legitimate.
    pub legit_stories: &'static [&'static str],
    /// What is true when it is phishing.
    pub phish_stories: &'static [&'static str],
}

/// One archetype per family of the first ten.
pub const ARCHETYPES: &[Archetype] = &[
    Archetype {
        id: "reset_from_real_domain",
        family: "password_reset",
        surface: reset_from_real_domain,
        legit_stories: &[
            "the recipient asked for the reset on the brand's site",
            "a colleague reset it on the recipient's behalf",
        ],
        phish_stories: &[
            "an attacker triggered the reset through a compromised sender account",
            "the brand's mail relay was abused to send the attacker's link",
        ],
    },
    Archetype {
        id: "alert_call_back",
        family: "account_alert",
        surface: alert_call_back,
        legit_stories: &["the brand's fraud team really saw a foreign sign-in"],
        phish_stories: &[
            "the attacker sent it from a hijacked brand mailbox to prime a phone scam",
        ],
    },
    Archetype {
        id: "new_vendor_no_links",
        family: "invoice_payment",
        surface: new_vendor_no_links,
        legit_stories: &[
            "procurement onboarded this supplier last week",
            "a department ordered from a new supplier",
        ],
        phish_stories: &["the supplier does not exist and the account belongs to a fraudster"],
    },
    Archetype {
        id: "carrier_third_party_shortener",
        family: "shipping",
        surface: carrier_third_party_shortener,
        legit_stories: &["the carrier's marketing platform shortens its links"],
        phish_stories: &["a compromised marketing account points the link at a fee scam"],
    },
    Archetype {
        id: "share_from_unknown_partner",
        family: "document_share",
        surface: share_from_unknown_partner,
        legit_stories: &["a new partner contact shares real project files"],
        phish_stories: &["an attacker's account on the real service shares a lure page"],
    },
    Archetype {
        id: "deposit_update_internal",
        family: "hr_payroll",
        surface: deposit_update_internal,
        legit_stories: &["HR really changes payroll provider this month"],
        phish_stories: &["an HR mailbox was taken over and the portal page was swapped"],
    },
    Archetype {
        id: "favour_from_internal",
        family: "executive_request",
        surface: favour_from_internal,
        legit_stories: &["the executive needs help with an errand"],
        phish_stories: &["the executive's mailbox was compromised and gift cards come next"],
    },
    Archetype {
        id: "expiry_notice_internal",
        family: "it_helpdesk",
        surface: expiry_notice_internal,
        legit_stories: &["IT's real password policy notice"],
        phish_stories: &["an attacker inside a helpdesk account sends the notice"],
    },
    Archetype {
        id: "refund_shortener",
        family: "refund_prize",
        surface: refund_shortener,
        legit_stories: &["the brand's mailing vendor shortens links"],
        phish_stories: &["a compromised mailing vendor sends a claim-form lure"],
    },
    Archetype {
        id: "protected_archive_statement",
        family: "attachment",
        surface: protected_archive_statement,
        legit_stories: &["the bank encrypts statements for this customer"],
        phish_stories: &["the archive from a compromised sender holds malware"],
    },
];

/// The archetype of a family; `None` for the families without one (those
/// added in generator version 2).
pub fn archetype_of(family: &str) -> Option<&'static Archetype> {
    ARCHETYPES.iter().find(|a| a.family == family)
}

/// The archetype with id `id`.
pub fn archetype(id: &str) -> Option<&'static Archetype> {
    ARCHETYPES.iter().find(|a| a.id == id)
}

fn hello(c: &mut Ctx) -> Piece {
    let h = c.one(&["Hi", "Hello", "Dear"]);
    t(format!("{h} {},", c.recipient.first))
}

fn reset_from_real_domain(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let pick = c.one(&["Your password reset code", "Password reset requested"]);
    let mut d = c.draft(format!("{name}: {pick}"));
    c.brand_sender(&mut d, "no-reply", "");
    d.para(vec![hello(c)]);
    let city = c.one(&["Porto", "Calgary", "Kraków", "Busan"]);
    d.para(vec![t(format!("A password reset was requested from a new device near {city}. Choose a new password here: ")), c.link("Reset password", "account/reset")]);
    d.para(vec![
        Piece::Marked(c.one(super::phrases::EXPIRY), vec![phish("urgency_threat")]),
        t("."),
    ]);
    d.para(vec![t(format!("{name} Support"))]);
    c.choose_html(&mut d, true);
    d
}

fn alert_call_back(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let pick = c.one(&[
        "Unusual activity on your account",
        "Please call us about your account",
    ]);
    let mut d = c.draft(pick);
    c.brand_sender(&mut d, "fraud-alerts", "");
    d.para(vec![hello(c)]);
    d.para(vec![Piece::Marked(c.one(super::phrases::REAL_ALARM), vec![phish("urgency_threat")]), t(format!(" on your {name} account. Please call the fraud team on the number printed on the back of your card."))]);
    d.para(vec![t(format!("{name} Fraud Prevention"))]);
    c.choose_html(&mut d, false);
    d
}

fn new_vendor_no_links(c: &mut Ctx) -> Draft {
    let vendor = c.one(&[
        "Kestrel Fittings",
        "Larkspur Office Goods",
        "Mossgate Print",
        "Pinecrest Facilities",
    ]);
    let domain = format!("{}.example", vendor.to_lowercase().replace(' ', "-"));
    let inv = slots::reference(&mut c.rng, "INV-", 5);
    let amt = slots::amount(&mut c.rng, 900, 14_000);
    let mut d = c.draft(format!("Invoice {inv} from {vendor}"));
    let who = Person::draw(&mut c.rng);
    d.from = format!("{} <{}>", who.full(), who.address(&domain));
    c.sender_domain = domain;
    d.para(vec![hello(c)]);
    d.para(vec![
        t(format!(
            "Thank you for your first order with {vendor}. Invoice {inv} for {amt} is attached; "
        )),
        Piece::Marked(
            c.one(&[
                "please pay by wire transfer to the account on the invoice",
                "please settle by bank transfer to the account shown on the invoice",
            ]),
            vec![phish("payment_request")],
        ),
        t("."),
    ]);
    d.para(vec![t(format!("{}\nAccounts, {vendor}", who.first))]);
    c.attach(&mut d, &format!("{inv}.pdf"), "application/pdf", false);
    c.choose_html(&mut d, false);
    d
}

fn carrier_third_party_shortener(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let pick = c.one(&[
        "New delivery options near you",
        "Choose your delivery day",
        "Pick-up points are now open",
    ]);
    let mut d = c.draft(pick);
    c.brand_sender(&mut d, "news", "");
    d.para(vec![hello(c)]);
    d.para(vec![t(format!(
        "{name} now lets you pick a delivery day or a pick-up point for every parcel."
    ))]);
    let href = format!(
        "https://{}/{}",
        c.one(slots::SHORTENERS),
        slots::token(&mut c.rng, 7)
    );
    d.para(vec![
        t("See the options: "),
        Piece::Link(LinkPiece {
            visible: "Delivery options".into(),
            href,
            whole: vec![],
            url: vec![phish("url_shortener")],
            host: None,
        }),
    ]);
    d.para(vec![t(format!("{name} Customer Care"))]);
    c.choose_html(&mut d, true);
    d
}

fn share_from_unknown_partner(c: &mut Ctx) -> Draft {
    let who = c.colleague.full();
    let partner = c.one(&["Halden Consulting", "Norrick Partners", "Vale & Finch"]);
    let doc = c.one(&[
        "Payment details.pdf",
        "Remittance advice.pdf",
        "Updated contract.pdf",
    ]);
    let mut d = c.draft(format!("{who} ({partner}) shared \"{doc}\" with you"));
    c.brand_sender(&mut d, "share", "");
    d.para(vec![t(format!(
        "{who} from {partner} shared a file with you."
    ))]);
    d.para(vec![t("Open it here: "), c.link("Open document", "d/view")]);
    c.choose_html(&mut d, true);
    d
}

fn deposit_update_internal(c: &mut Ctx) -> Draft {
    let org = c.org.name;
    let mut d = c.draft("Payroll provider change: check your details".to_string());
    let hr = c.colleague.full();
    c.internal_sender(&mut d, &format!("{hr} ({org} HR)"), "payroll");
    d.para(vec![hello(c)]);
    d.para(vec![
        t("We are moving payroll to a new provider next month. Please "),
        Piece::Marked(
            "update your payment information".into(),
            vec![phish("payment_request")],
        ),
        t(" on the HR portal: "),
        c.internal_link("HR portal", "hr", "payroll/details"),
    ]);
    d.para(vec![t(hr)]);
    c.choose_html(&mut d, true);
    d
}

fn favour_from_internal(c: &mut Ctx) -> Draft {
    let boss = c.colleague.clone();
    let pick = c.one(&["Quick favour", "Are you around?"]);
    let mut d = c.draft(pick);
    let local = boss.address(c.org.domain);
    let local = local.split('@').next().unwrap_or_default().to_string();
    c.internal_sender(&mut d, &boss.full(), &local);
    d.para(vec![hello(c)]);
    d.para(vec![t(c.one(&[
        "Are you at your desk? I need a quick favour, reply here when you see this.",
        "Do you have a minute? I need help with something, reply to this email.",
    ]))]);
    d.para(vec![t(boss.first.clone())]);
    c.choose_html(&mut d, false);
    d
}

fn expiry_notice_internal(c: &mut Ctx) -> Draft {
    let org = c.org.name;
    let mut d = c.draft("Your password expires soon".to_string());
    c.internal_sender(&mut d, &format!("{org} IT Service Desk"), "servicedesk");
    d.para(vec![hello(c)]);
    d.para(vec![
        t("Your network password expires "),
        Piece::Marked(
            c.one(&["within 3 days", "within 48 hours"]),
            vec![phish("urgency_threat")],
        ),
        t(". Change it on the self-service page: "),
        c.internal_link("Password self-service", "sso", "password/change"),
    ]);
    d.para(vec![t("IT Service Desk")]);
    c.choose_html(&mut d, true);
    d
}

fn refund_shortener(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let amt = slots::amount(&mut c.rng, 20, 400);
    let mut d = c.draft(format!("Your refund of {amt}"));
    c.brand_sender(&mut d, "refunds", "");
    d.para(vec![hello(c)]);
    let href = format!(
        "https://{}/{}",
        c.one(slots::SHORTENERS),
        slots::token(&mut c.rng, 7)
    );
    d.para(vec![
        t(format!("A refund of {amt} has been approved. Details: ")),
        Piece::Link(LinkPiece {
            visible: "Refund details".into(),
            href,
            whole: vec![],
            url: vec![phish("url_shortener")],
            host: None,
        }),
    ]);
    d.para(vec![t(name)]);
    c.choose_html(&mut d, true);
    d
}

fn protected_archive_statement(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let month = c.one(&["March", "April", "May", "June"]);
    let mut d = c.draft(format!("Your {month} statement (protected)"));
    c.brand_sender(&mut d, "statements", "");
    d.para(vec![hello(c)]);
    d.para(vec![t(format!("Your {month} statement is attached as a password-protected archive. The password was sent to your phone by text message."))]);
    d.para(vec![t(name)]);
    let file = format!("statement_{}.zip", month.to_lowercase());
    c.attach(&mut d, &file, "application/zip", true);
    c.choose_html(&mut d, false);
    d
}
