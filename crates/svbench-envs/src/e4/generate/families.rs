//! The families: the ten of spec §3.1 here, the later ones in their own
//! modules. Each is a legitimate template and its phishing
//! counterpart written by the same function, so both share the surface form
//! and differ only in the indicators the role inserts.

use super::ctx::{soft, t, Ctx};
use super::draft::{Draft, Piece};
use super::phrases as p;
use super::slots::{self, Person};

/// One family.
#[derive(Debug)]
pub struct Family {
    /// Stable id (`meta.family`).
    pub id: &'static str,
    /// `meta.phishing_type` of its phishing rows.
    pub phishing_type: &'static str,
    /// Brands it writes about in train/dev/test (none: internal mail).
    pub brands: &'static [&'static str],
    /// Brands it may use in the ood split (ood brands only).
    pub ood_brands: &'static [&'static str],
    /// Hard indicator categories a phishing row draws from.
    pub hard: &'static [&'static str],
    /// Soft indicators a legitimate row may carry.
    pub soft: &'static [&'static str],
    /// Writes the email for the context's role.
    pub write: fn(&mut Ctx) -> Draft,
    /// Only in the ood split.
    pub ood_only: bool,
    /// In every split, the ood one included (mail between organisations:
    /// the ood split changes organisations and vendors instead of brands).
    pub everywhere: bool,
    /// Languages a group may be written in (`meta.language`).
    pub languages: &'static [&'static str],
    /// Its indicators are worded the way the builtin extractor reads them
    /// (the first ten families); the later ones are written so that a
    /// keyword list misses many of theirs.
    pub extractor_worded: bool,
}

/// English only.
pub const EN: &[&str] = &["en"];

/// Every family, in a fixed order.
pub const FAMILIES: &[Family] = &[
    Family {
        id: "password_reset",
        phishing_type: "credential_harvest",
        brands: &[
            "Northwind Bank",
            "Woodgrove Bank",
            "Adatum Mail",
            "Lucerne Telecom",
            "Alpine Ski House",
            "Margie's Travel",
        ],
        ood_brands: &["Coho Crypto"],
        hard: &[
            "lookalike_domain",
            "credential_request",
            "link_text_mismatch",
            "urgency_threat",
            "suspicious_tld",
            "display_name_mismatch",
            "ip_url",
            "punycode_domain",
            "generic_greeting",
        ],
        soft: &[soft::EXPIRY, soft::BRAND_SHORTENER, soft::GREETING],
        write: password_reset,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "account_alert",
        phishing_type: "account_suspension",
        brands: &[
            "Northwind Bank",
            "Woodgrove Bank",
            "Lucerne Telecom",
            "Margie's Travel",
            "Adatum Mail",
        ],
        ood_brands: &["Coho Crypto"],
        hard: &[
            "urgency_threat",
            "lookalike_domain",
            "credential_request",
            "url_shortener",
            "display_name_mismatch",
            "suspicious_tld",
            "reply_to_mismatch",
            "ip_url",
        ],
        soft: &[soft::ALARM, soft::BRAND_SHORTENER],
        write: account_alert,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "invoice_payment",
        phishing_type: "payment_fraud",
        brands: &["Fabrikam Supplies", "Proseware Systems"],
        ood_brands: &[],
        hard: &[
            "payment_request",
            "reply_to_mismatch",
            "urgency_threat",
            "lookalike_domain",
            "display_name_mismatch",
            "risky_attachment",
        ],
        soft: &[soft::ALARM],
        write: invoice_payment,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "shipping",
        phishing_type: "delivery_fee",
        brands: &["Contoso Parcel", "Blue Yonder Freight"],
        ood_brands: &[],
        hard: &[
            "url_shortener",
            "ip_url",
            "payment_request",
            "pii_request",
            "display_name_mismatch",
            "suspicious_tld",
            "urgency_threat",
            "lookalike_domain",
        ],
        soft: &[soft::BRAND_SHORTENER, soft::GREETING],
        write: shipping,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "document_share",
        phishing_type: "document_share",
        brands: &["Tailspin Docs", "Litware Cloud"],
        ood_brands: &[],
        hard: &[
            "lookalike_domain",
            "credential_request",
            "link_text_mismatch",
            "display_name_mismatch",
            "suspicious_tld",
            "punycode_domain",
        ],
        soft: &[soft::EXPIRY],
        write: document_share,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "hr_payroll",
        phishing_type: "payroll_pii",
        brands: &["Trey Payroll"],
        ood_brands: &[],
        hard: &[
            "freemail_corporate",
            "pii_request",
            "urgency_threat",
            "reply_to_mismatch",
            "credential_request",
            "lookalike_domain",
        ],
        soft: &[soft::EXPIRY],
        write: hr_payroll,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "executive_request",
        phishing_type: "bec_gift_card",
        brands: &[],
        ood_brands: &[],
        hard: &[
            "freemail_corporate",
            "payment_request",
            "urgency_threat",
            "reply_to_mismatch",
        ],
        soft: &[soft::ALARM],
        write: executive_request,
        ood_only: true,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "it_helpdesk",
        phishing_type: "helpdesk_mailbox",
        brands: &["Adatum Mail"],
        ood_brands: &[],
        hard: &[
            "lookalike_domain",
            "credential_request",
            "urgency_threat",
            "ip_url",
            "link_text_mismatch",
            "suspicious_tld",
            "display_name_mismatch",
        ],
        soft: &[soft::EXPIRY],
        write: it_helpdesk,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "refund_prize",
        phishing_type: "prize_refund",
        brands: &[],
        ood_brands: &["Wingtip Revenue Agency", "Fourth Coffee Rewards"],
        hard: &[
            "pii_request",
            "display_name_mismatch",
            "suspicious_tld",
            "url_shortener",
            "lookalike_domain",
            "urgency_threat",
            "generic_greeting",
        ],
        soft: &[soft::GREETING, soft::EXPIRY],
        write: refund_prize,
        ood_only: true,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "attachment",
        phishing_type: "malware_attachment",
        brands: &["Northwind Bank", "Woodgrove Bank", "Lucerne Telecom"],
        ood_brands: &[],
        hard: &[
            "risky_attachment",
            "display_name_mismatch",
            "lookalike_domain",
            "urgency_threat",
            "reply_to_mismatch",
            "generic_greeting",
        ],
        soft: &[soft::GREETING],
        write: attachment,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: true,
    },
    Family {
        id: "bec_request",
        phishing_type: "bec_no_link",
        brands: &[],
        ood_brands: &[],
        hard: &[
            "lookalike_domain",
            "freemail_corporate",
            "reply_to_mismatch",
            "payment_request",
        ],
        soft: &[soft::PAYMENT_WORDING],
        write: super::bec::bec_request,
        ood_only: false,
        everywhere: true,
        languages: super::lang::LANGUAGES,
        extractor_worded: false,
    },
    Family {
        id: "vendor_invoice",
        phishing_type: "invoice_fraud",
        brands: &[],
        ood_brands: &[],
        hard: &["lookalike_domain", "payment_request", "reply_to_mismatch"],
        soft: &[soft::PAYMENT_WORDING, soft::PLATFORM_REPLY_TO],
        write: super::invoice::vendor_invoice,
        ood_only: false,
        everywhere: true,
        languages: super::lang::LANGUAGES,
        extractor_worded: false,
    },
    Family {
        id: "thread_hijack",
        phishing_type: "thread_hijack",
        brands: &[],
        ood_brands: &[],
        hard: &[
            "lookalike_domain",
            "reply_to_mismatch",
            "payment_request",
            "link_text_mismatch",
        ],
        soft: &[soft::PLATFORM_REPLY_TO],
        write: super::thread::thread_hijack,
        ood_only: false,
        everywhere: true,
        languages: EN,
        extractor_worded: false,
    },
    Family {
        id: "alarming_notice",
        phishing_type: "calm_lure",
        brands: &[
            "Northwind Bank",
            "Woodgrove Bank",
            "Lucerne Telecom",
            "Contoso Parcel",
            "Blue Yonder Freight",
            "Tailspin Docs",
            "Litware Cloud",
            "Adatum Mail",
            "Alpine Ski House",
            "Margie's Travel",
        ],
        ood_brands: &["Coho Crypto"],
        hard: &[
            "lookalike_domain",
            "display_name_mismatch",
            "link_text_mismatch",
        ],
        soft: &[soft::ALARM, soft::EXPIRY, soft::CREDENTIAL_WORDING],
        write: super::alarming::alarming_notice,
        ood_only: false,
        everywhere: false,
        languages: EN,
        extractor_worded: false,
    },
];

/// The family with id `id`.
pub fn family(id: &str) -> &'static Family {
    FAMILIES
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("family `{id}`"))
}

/// A paragraph from optional pieces.
fn para(pieces: Vec<Option<Piece>>) -> Vec<Piece> {
    pieces.into_iter().flatten().collect()
}

/// A sentence that wraps an optional clause: `before CLAUSE after`.
fn wrap(before: &str, clause: Option<Piece>, after: &str) -> Vec<Option<Piece>> {
    match clause {
        Some(c) => vec![Some(t(before)), Some(c), Some(t(after))],
        None => vec![],
    }
}

fn sign_off(c: &mut Ctx, team: &str) -> Vec<Piece> {
    let bye = c.one(&["Thanks,", "Regards,", "Kind regards,", "Best,"]);
    vec![t(format!("{bye} {team}"))]
}

fn password_reset(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let subject = if c.is_phish() {
        c.one(&[
            "Reset your password now",
            "Password reset required",
            "Action needed: password reset",
            "Your password reset request",
        ])
    } else {
        c.one(&[
            "Your password reset request",
            "Reset your password",
            "Password reset instructions",
            "Here is your reset link",
        ])
    };
    let mut d = c.draft(format!("{name}: {subject}"));
    c.brand_sender(&mut d, "no-reply", "Account Services");
    let g = c.greeting();
    d.para(vec![g]);
    let opener = if c.is_phish() {
        c.one(&[
            "We have reset access to your account.",
            "A password change is pending on your profile.",
            "Your password must be reset before you sign in again.",
        ])
    } else {
        c.one(&[
            "We received a request to reset the password for your account.",
            "Someone, hopefully you, asked to reset your password.",
            "You asked us to reset your password.",
        ])
    };
    d.para(vec![t(opener)]);
    let cred = c.clause("credential_request", None, p::CREDENTIAL);
    let mut body = vec![Some(t("Use the link below to choose a new password"))];
    if cred.is_some() {
        body = vec![
            Some(t("Open the secure page and ")),
            cred,
            Some(t(" to continue")),
        ];
    }
    let urg = c.clause("urgency_threat", None, p::URGENCY_ACCOUNT);
    body.extend(wrap(" ", urg, ""));
    body.push(Some(t(". ")));
    let link = c.link("Reset password", "account/reset");
    body.push(Some(link));
    d.para(para(body));
    if let Some(exp) = c
        .clause("urgency_threat", Some(soft::EXPIRY), p::EXPIRY)
        .filter(|_| !c.is_phish())
    {
        d.para(vec![exp, t(".")]);
    }
    d.para(vec![t(c.one(&[
        "If you did not ask for this, you can ignore this email.",
        "Didn't request a reset? No further action is needed.",
        "If this wasn't you, contact support from our website.",
    ]))]);
    let so = sign_off(c, &format!("{name} Support"));
    d.para(so);
    c.choose_html(&mut d, true);
    d
}

fn account_alert(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let device = c.one(&[
        "Chrome on Windows",
        "Safari on iPhone",
        "Firefox on Linux",
        "the mobile app on Android",
    ]);
    let city = c.one(&[
        "Lisbon",
        "Denver",
        "Osaka",
        "Nairobi",
        "Warsaw",
        "Toronto",
        "Melbourne",
    ]);
    let subject = if c.is_phish() {
        c.one(&[
            "Account access limited",
            "Sign-in attempt blocked",
            "Your account is on hold",
            "New sign-in to your account",
        ])
    } else {
        c.one(&[
            "New sign-in to your account",
            "Was this you? New device sign-in",
            "Security alert: new sign-in",
        ])
    };
    let mut d = c.draft(subject);
    c.brand_sender(&mut d, "security", "Security Team");
    let g = c.greeting();
    d.para(vec![g]);
    let alarm = c
        .clause("urgency_threat", Some(soft::ALARM), p::REAL_ALARM)
        .filter(|_| !c.is_phish());
    let mut first = para(wrap("", alarm, ". "));
    first.push(t(format!(
        "Your {name} account was accessed from {device} near {city} on {}.",
        slots::day(&mut c.rng)
    )));
    d.para(first);
    if c.is_phish() {
        let mut s = vec![Some(t("To keep using your account, "))];
        let cred = c.clause("credential_request", None, p::CREDENTIAL);
        s.push(Some(cred.unwrap_or_else(|| t("review the sign-in"))));
        let urg = c.clause("urgency_threat", None, p::URGENCY_ACCOUNT);
        s.extend(wrap(" ", urg, ""));
        s.push(Some(t(": ")));
        s.push(Some(c.link("Review activity", "security/review")));
        d.para(para(s));
        c.choose_html(&mut d, true);
    } else if c.chance(50) {
        d.para(vec![
            t("If this was you, no action is needed. If not, review your devices: "),
            c.link("Security settings", "security/devices"),
        ]);
        c.choose_html(&mut d, true);
    } else {
        d.para(vec![t("If this was you, no action is needed. If not, change your password from the app or call the number on the back of your card.")]);
        c.choose_html(&mut d, false);
    }
    let so = sign_off(c, &format!("{name} Security"));
    d.para(so);
    d
}

fn invoice_payment(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let inv = slots::reference(&mut c.rng, "INV-2025-", 4);
    let amt = slots::amount(&mut c.rng, 400, 48_000);
    let subject = c
        .one(&[
            "Invoice {inv}",
            "Invoice {inv} for your order",
            "Payment due: invoice {inv}",
            "{inv} from accounts",
        ])
        .replace("{inv}", &inv);
    let mut d = c.draft(subject);
    c.brand_sender(&mut d, "billing", "Accounts Receivable");
    let hello = format!("Hello {},", c.recipient.first);
    d.para(vec![t(hello)]);
    d.para(vec![t(format!(
        "Please find invoice {inv} for {amt} attached, covering the {} order.",
        c.one(&[
            "March supplies",
            "quarterly maintenance",
            "office furniture",
            "lab consumables",
            "software licences"
        ])
    ))]);
    if c.is_phish() {
        let pay = c.clause("payment_request", None, p::PAYMENT_CHANGE);
        let mut s = wrap("Please note that ", pay, ". ");
        let urg = c.clause("urgency_threat", None, p::URGENCY_PAYMENT);
        s.extend(wrap("Settle the balance ", urg, "."));
        if s.is_empty() {
            s.push(Some(t(
                "Reply to this email with any questions about the amount.",
            )));
        }
        d.para(para(s));
        c.choose_html(&mut d, false);
    } else {
        let alarm = c.clause(
            "urgency_threat",
            Some(soft::ALARM),
            &["This is a final notice", "This is a second reminder"],
        );
        let mut s = wrap("", alarm, ". ");
        s.push(Some(t("You can view and pay it in the supplier portal: ")));
        s.push(Some(
            c.link("Open invoice", &format!("portal/invoices/{inv}")),
        ));
        d.para(para(s));
        c.choose_html(&mut d, true);
    }
    let risky = c.has("risky_attachment");
    let file = if risky {
        format!("{inv}.{}", c.one(&["pdf.exe", "html", "iso", "xlsm"]))
    } else {
        format!("{inv}.pdf")
    };
    let mime = if risky {
        "application/octet-stream"
    } else {
        "application/pdf"
    };
    c.attach(&mut d, &file, mime, risky);
    let so = sign_off(c, &format!("{name} Accounts"));
    d.para(so);
    d
}

fn shipping(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let track = slots::reference(&mut c.rng, "CP", 10);
    let subject = if c.is_phish() {
        c.one(&[
            "Delivery on hold: {t}",
            "Your parcel {t} is waiting",
            "Customs charge for parcel {t}",
            "Delivery attempt failed",
        ])
    } else {
        c.one(&[
            "Your parcel {t} is on its way",
            "Delivery scheduled: {t}",
            "Shipment {t} has been dispatched",
            "Out for delivery today",
        ])
    }
    .replace("{t}", &track);
    let mut d = c.draft(subject);
    c.brand_sender(&mut d, "tracking", "Delivery Notification");
    let g = c.greeting();
    d.para(vec![g]);
    if c.is_phish() {
        let fee = slots::amount(&mut c.rng, 1, 4);
        d.para(vec![t(format!(
            "Your parcel {track} is held at our depot. A handling charge of {fee} is outstanding."
        ))]);
        let mut s = vec![];
        let pay = c.clause("payment_request", None, p::PAYMENT_FEE);
        s.extend(wrap("Please ", pay, " "));
        let pii = c.clause("pii_request", None, p::PII);
        s.extend(wrap("and ", pii, " "));
        let urg = c.clause("urgency_threat", None, p::URGENCY_PAYMENT);
        s.extend(wrap("", urg, " "));
        s.push(Some(t("here: ")));
        s.push(Some(c.link("Schedule delivery", "parcel/release")));
        d.para(para(s));
    } else {
        let when = slots::day(&mut c.rng);
        d.para(vec![t(format!(
            "Good news: parcel {track} left our hub and should arrive on {when}."
        ))]);
        d.para(vec![
            t("Track it or change the delivery slot: "),
            c.link("Track parcel", &format!("track/{track}")),
        ]);
    }
    c.choose_html(&mut d, true);
    let so = sign_off(c, &format!("{name} Customer Care"));
    d.para(so);
    d
}

fn document_share(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let who = c.colleague.full();
    let doc = c.one(&[
        "Q3 budget review.xlsx",
        "Contract draft v4.docx",
        "Board deck.pptx",
        "Site photos",
        "Onboarding checklist.pdf",
        "Vendor comparison.xlsx",
    ]);
    let subject = c
        .one(&[
            "{who} shared \"{doc}\" with you",
            "Document shared with you: {doc}",
            "{who} invited you to edit",
        ])
        .replace("{who}", &who)
        .replace("{doc}", &doc);
    let mut d = c.draft(subject);
    c.brand_sender(&mut d, "share", "Shared Files");
    d.para(vec![t(format!("{who} shared a file with you."))]);
    let note = c.one(&[
        "Can you look before Thursday?",
        "Comments welcome.",
        "Here is the latest version.",
        "As discussed in the call.",
    ]);
    d.para(vec![t(format!("\"{note}\""))]);
    let cred = c.clause("credential_request", None, p::CREDENTIAL);
    let mut s = wrap("To open the document, ", cred, ". ");
    s.push(Some(c.link("Open document", "d/view")));
    d.para(para(s));
    if let Some(exp) = c
        .clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &["This sharing link expires within 7 days"],
        )
        .filter(|_| !c.is_phish())
    {
        d.para(vec![exp, t(".")]);
    }
    d.para(vec![t(format!(
        "You received this because {who} shared a file using {name}."
    ))]);
    c.choose_html(&mut d, true);
    d
}

fn hr_payroll(c: &mut Ctx) -> Draft {
    let org = c.org.name;
    let mut d;
    if c.is_phish() {
        let subject = c.one(&[
            "Payroll update required",
            "Action needed: direct deposit update",
            "Update your payroll details",
            "Benefits enrollment: missing information",
        ]);
        d = c.draft(subject);
        let display = format!("{org} Payroll");
        let local = c.one(&["payroll.dept", "hr.payroll", "payroll-team"]);
        if c.has("lookalike_domain") {
            c.brand_sender(&mut d, &local, &display);
        } else {
            c.phish_sender(&mut d, &display, &local);
        }
        let hello = format!("Hello {},", c.recipient.first);
        d.para(vec![t(hello)]);
        d.para(vec![t(
            "We are moving payroll to a new provider and your employee record is incomplete.",
        )]);
        let mut s = vec![];
        let pii = c.clause("pii_request", None, p::PII);
        s.extend(wrap("Please ", pii, " "));
        let cred = c.clause("credential_request", None, p::CREDENTIAL);
        s.extend(wrap("and ", cred, " "));
        let urg = c.clause(
            "urgency_threat",
            None,
            &[
                "within 24 hours or your next salary payment will be delayed",
                "immediately to avoid a missed payment",
            ],
        );
        s.extend(wrap("", urg, ""));
        if s.is_empty() {
            s.push(Some(t(
                "Reply to this email so we can complete the change before the next pay run",
            )));
        }
        s.push(Some(t(".")));
        d.para(para(s));
        if c.has("lookalike_domain") {
            d.para(vec![
                t("Employee portal: "),
                c.link("Payroll portal", "employee/update"),
            ]);
            c.choose_html(&mut d, true);
        } else {
            c.choose_html(&mut d, false);
        }
    } else {
        let subject = c.one(&[
            "Open enrollment for 2025 benefits",
            "Benefits enrollment is open",
            "Reminder: choose your benefits",
            "Your new payslip is available",
        ]);
        d = c.draft(subject);
        let hr = c.colleague.full();
        let local = c.one(&["hr", "benefits", "people-team"]);
        c.internal_sender(&mut d, &format!("{hr} ({org} HR)"), &local);
        let hello = format!("Hi {},", c.recipient.first);
        d.para(vec![t(hello)]);
        let opener = c.one(&[
            "Open enrollment has started.",
            "It is time to review your health and pension options.",
            "Your benefit choices for next year are ready to review.",
        ]);
        d.para(vec![
            t(format!(
                "{opener} Make your choices on the internal benefits portal: "
            )),
            c.internal_link("Benefits portal", "benefits", "enroll"),
        ]);
        if let Some(exp) = c.clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &["Enrollment closes within 10 days"],
        ) {
            d.para(vec![exp, t(".")]);
        }
        d.para(vec![t(format!(
            "Questions? Drop by the HR desk or reply here. {hr}"
        ))]);
        c.choose_html(&mut d, true);
    }
    d
}

fn executive_request(c: &mut Ctx) -> Draft {
    let boss = c.colleague.clone();
    let role = c.one(&["CEO", "Managing Director", "CFO", "Chief Executive"]);
    let org = c.org.name;
    let mut d;
    if c.is_phish() {
        let subject = c.one(&[
            "Quick favour",
            "Are you at your desk?",
            "Need your help today",
            "Confidential request",
        ]);
        d = c.draft(subject);
        let local = format!(
            "{}.{}.office",
            boss.first.to_lowercase(),
            c.one(&["ceo", "exec", "md"])
        );
        c.phish_sender(&mut d, &format!("{}, {role}", boss.full()), &local);
        d.para(vec![t(format!("Hi {},", c.recipient.first))]);
        d.para(vec![t(c.one(&[
            "I'm stuck in meetings and need something handled discreetly.",
            "I need a small task done before the end of the day.",
            "Are you free for a confidential task?",
        ]))]);
        let mut s = vec![];
        let pay = c.clause("payment_request", None, p::PAYMENT_GIFT);
        s.extend(wrap("Please ", pay, " "));
        let urg = c.clause(
            "urgency_threat",
            None,
            &["immediately", "today before 3 pm", "within the hour"],
        );
        s.extend(wrap("", urg, " "));
        s.push(Some(t("and keep this between us for now.")));
        d.para(para(s));
        d.para(vec![t(format!("{}\n{role}, {org}", boss.first))]);
    } else {
        let subject = c.one(&[
            "Notes from Tuesday's meeting",
            "Can you send the meeting notes?",
            "Slides for the board review",
            "Follow-up from the planning session",
        ]);
        d = c.draft(subject);
        let local = boss.address(c.org.domain);
        let local = local.split('@').next().unwrap_or_default().to_string();
        c.internal_sender(&mut d, &boss.full(), &local);
        d.para(vec![t(format!("Hi {},", c.recipient.first))]);
        let alarm = c.clause(
            "urgency_threat",
            Some(soft::ALARM),
            &["I need this urgently", "This is a final reminder"],
        );
        let mut s = wrap("", alarm, ": ");
        s.push(Some(t(c.one(&[
            "could you send me the notes from the planning meeting?",
            "could you share the action items from Tuesday?",
            "please put the slides in the shared folder before the review.",
        ]))));
        d.para(para(s));
        d.para(vec![t(c.one(&[
            "No rush if you are busy with the audit.",
            "Thanks for pulling this together.",
            "Happy to discuss at the weekly sync.",
        ]))]);
        d.para(vec![t(format!("{}\n{role}, {org}", boss.first))]);
    }
    c.choose_html(&mut d, false);
    d
}

fn it_helpdesk(c: &mut Ctx) -> Draft {
    let org = c.org.name;
    let mut d;
    if c.is_phish() {
        let subject = c.one(&[
            "Mailbox storage full",
            "Your mailbox is over quota",
            "Action required: mailbox upgrade",
            "Pending messages on hold",
        ]);
        d = c.draft(subject);
        c.brand_sender(&mut d, "helpdesk", "Mailbox Administrator");
        d.para(vec![t(format!("Hello {},", c.recipient.first))]);
        let used = c.rng.int(96, 99);
        d.para(vec![t(format!(
            "Your mailbox has used {used}% of its storage and new messages are on hold."
        ))]);
        let mut s = vec![];
        let cred = c.clause("credential_request", None, p::CREDENTIAL);
        s.extend(wrap("To keep your mail, ", cred, " "));
        let urg = c.clause("urgency_threat", None, p::URGENCY_MAILBOX);
        s.extend(wrap("", urg, ""));
        if s.is_empty() {
            s.push(Some(t("Sign in to the storage page to release them")));
        }
        s.push(Some(t(": ")));
        s.push(Some(c.link("Upgrade storage", "mailbox/quota")));
        d.para(para(s));
        d.para(vec![t("IT Service Desk")]);
    } else {
        let subject = c.one(&[
            "Scheduled mailbox migration this weekend",
            "Planned maintenance: email migration",
            "Your mailbox moves on Saturday",
        ]);
        d = c.draft(subject);
        c.internal_sender(&mut d, &format!("{org} IT Service Desk"), "servicedesk");
        d.para(vec![t(format!("Hello {},", c.recipient.first))]);
        let when = slots::day(&mut c.rng);
        let brand = c.brand.name.clone();
        d.para(vec![t(format!("On {when} we will move all mailboxes to {brand}. Mail sent during the window is delivered afterwards; you do not need to do anything."))]);
        if let Some(exp) = c.clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &["Shared calendars are read-only within 2 hours of the start"],
        ) {
            d.para(vec![exp, t(".")]);
        }
        let ticket = slots::reference(&mut c.rng, "INC-", 6);
        d.para(vec![
            t(format!(
                "Details and the FAQ are on the intranet (change {ticket}): "
            )),
            c.internal_link("Migration FAQ", "intranet", "it/migration"),
        ]);
        d.para(vec![t("IT Service Desk")]);
    }
    c.choose_html(&mut d, true);
    d
}

fn refund_prize(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let tax = c.brand.kind == "tax";
    let amt = slots::amount(&mut c.rng, 20, 900);
    let subject = match (tax, c.is_phish()) {
        (true, true) => c.one(&[
            "You are eligible for a tax refund",
            "Refund notification: {a}",
            "Claim your overpayment refund",
        ]),
        (true, false) => c.one(&[
            "Your refund of {a} has been issued",
            "Refund receipt",
            "Payment issued: {a}",
        ]),
        (false, true) => c.one(&[
            "Congratulations, you won!",
            "Your reward of {a} is waiting",
            "Claim your prize",
        ]),
        (false, false) => c.one(&[
            "Your refund of {a} is on its way",
            "Refund receipt for your order",
            "Rewards balance update",
        ]),
    }
    .replace("{a}", &amt);
    let mut d = c.draft(subject);
    c.brand_sender(
        &mut d,
        if tax { "refunds" } else { "rewards" },
        "Claims Department",
    );
    let g = c.greeting();
    d.para(vec![g]);
    if c.is_phish() {
        let what = if tax {
            "our records show an overpayment"
        } else {
            "your address was selected in our customer draw"
        };
        d.para(vec![t(format!(
            "After review, {what} and {amt} is waiting for you."
        ))]);
        let mut s = vec![];
        let pii = c.clause("pii_request", None, p::PII);
        s.extend(wrap("To receive it, ", pii, " "));
        let urg = c.clause(
            "urgency_threat",
            None,
            &[
                "within 48 hours or the claim expires",
                "immediately to avoid losing the payment",
            ],
        );
        s.extend(wrap("", urg, ""));
        s.push(Some(t(" on the claim form: ")));
        s.push(Some(c.link("Claim form", "claim")));
        d.para(para(s));
    } else {
        let r = slots::reference(&mut c.rng, "R-", 7);
        let how = if tax {
            "to the bank account on file"
        } else {
            "to your original payment card"
        };
        d.para(vec![t(format!("We have issued {amt} {how}, reference {r}. It usually appears within five working days."))]);
        d.para(vec![
            t("See your statement online: "),
            c.link("View refund", &format!("refunds/{r}")),
        ]);
        if let Some(exp) = c.clause(
            "urgency_threat",
            Some(soft::EXPIRY),
            &["The receipt link expires within 30 days"],
        ) {
            d.para(vec![exp, t(".")]);
        }
    }
    c.choose_html(&mut d, true);
    let so = sign_off(c, &name);
    d.para(so);
    d
}

fn attachment(c: &mut Ctx) -> Draft {
    let name = c.brand.name.clone();
    let month = c.one(&[
        "January", "February", "March", "April", "May", "June", "July", "August",
    ]);
    let subject = c
        .one(&[
            "Your {m} statement is ready",
            "{m} statement",
            "Statement for {m} attached",
            "Your e-statement",
        ])
        .replace("{m}", &month);
    let mut d = c.draft(subject);
    c.brand_sender(&mut d, "statements", "Statements Team");
    let g = c.greeting();
    d.para(vec![g]);
    let last4 = c.rng.int(1000, 9999);
    d.para(vec![t(format!(
        "Your statement for {month} for the account ending {last4} is attached."
    ))]);
    let urg = c.clause(
        "urgency_threat",
        None,
        &[
            "Open it today to avoid a late penalty",
            "Review it immediately to avoid suspension",
        ],
    );
    if let Some(u) = urg {
        d.para(vec![u, t(".")]);
    } else {
        d.para(vec![t(c.one(&[
            "You can also see it in online banking.",
            "Keep it for your records.",
            "It lists every transaction of the month.",
        ]))]);
    }
    let risky = c.has("risky_attachment");
    let (file, mime) = if risky {
        let ext = c.one(&["pdf.exe", "html", "iso", "pdf.html", "htm"]);
        let mime = match ext.as_str() {
            "iso" => "application/x-iso9660-image",
            "pdf.exe" => "application/octet-stream",
            _ => "text/html",
        };
        (format!("statement_{}.{ext}", month.to_lowercase()), mime)
    } else {
        (
            format!("statement_{}.pdf", month.to_lowercase()),
            "application/pdf",
        )
    };
    c.attach(&mut d, &file, mime, risky);
    let so = sign_off(c, &name);
    d.para(so);
    c.choose_html(&mut d, false);
    d
}

/// A second person for a context (never the recipient).
pub fn colleague(c: &mut Ctx) -> Person {
    loop {
        let p = Person::draw(&mut c.rng);
        if p != c.recipient {
            return p;
        }
    }
}
