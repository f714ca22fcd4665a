//! Positive and negative fixtures per category; every finding of every
//! fixture is checked against the span invariants.

use super::*;
use crate::{parse_message, render, EmailLimits};

/// Extracts from a raw message, asserting the span invariants on the way.
fn run(raw: &str) -> Vec<Finding> {
    let limits = EmailLimits::default();
    let email = parse_message(raw.as_bytes(), &limits).expect("fixture parses");
    let rendered = render(&email, &limits);
    let findings = extract(&email, &rendered, IndicatorSet::builtin());
    assert_invariants(&rendered.text, &findings);
    findings
}

/// The spec's citability rules hold for every finding.
pub(crate) fn assert_invariants(text: &str, findings: &[Finding]) {
    let chars: Vec<char> = text.chars().collect();
    let mut seen = std::collections::HashSet::new();
    for f in findings {
        assert!(f.start < f.end && f.end <= chars.len(), "{f:?}");
        let slice: String = chars[f.start..f.end].iter().collect();
        assert_eq!(slice, f.text, "code-point slice equals text");
        let n = f.end - f.start;
        assert!((4..=200).contains(&n), "length {n}: {f:?}");
        let alnum = |c: char| c.is_alphanumeric();
        let start_ok = f.start == 0 || !alnum(chars[f.start - 1]) || !alnum(chars[f.start]);
        let end_ok = f.end == chars.len() || !alnum(chars[f.end]) || !alnum(chars[f.end - 1]);
        assert!(start_ok && end_ok, "word-bounded: {f:?}");
        assert_eq!(Polarity::of(f.category), Some(f.polarity));
        assert!(
            seen.insert((f.category, f.start, f.end)),
            "deduplicated: {f:?}"
        );
    }
}

fn texts<'a>(findings: &'a [Finding], category: &str) -> Vec<&'a str> {
    findings
        .iter()
        .filter(|f| f.category == category)
        .map(|f| f.text.as_str())
        .collect()
}

fn has(findings: &[Finding], category: &str, text: &str) -> bool {
    texts(findings, category).contains(&text)
}

fn none(findings: &[Finding], category: &str) -> bool {
    texts(findings, category).is_empty()
}

/// A plain-text message.
fn plain(from: &str, body: &str) -> String {
    format!("From: {from}\r\nTo: dana@acme-corp.example\r\nSubject: Notice\r\n\r\n{body}")
}

/// An HTML message.
fn html(from: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: dana@acme-corp.example\r\nSubject: Notice\r\n\
         Content-Type: text/html\r\n\r\n{body}"
    )
}

#[test]
fn builtin_data_compiles_with_hashes_and_weights() {
    let set = IndicatorSet::builtin();
    assert_eq!(set.indicators_sha256().len(), 64);
    assert_eq!(set.brands_sha256().len(), 64);
    assert_ne!(set.indicators_sha256(), set.brands_sha256());
    assert_eq!(set.weight("lookalike_domain"), Some(2.5));
    assert_eq!(set.weight("generic_greeting"), Some(0.25));
    assert_eq!(set.weight("internal_sender"), Some(-1.0));
    assert_eq!(set.weight("nope"), None);
    assert_eq!(set.offset(), 1.5);
    for c in PHISH_CATEGORIES.iter().chain(&BENIGN_CATEGORIES) {
        assert!(set.weight(c).is_some(), "{c}");
    }
}

#[test]
fn unknown_keys_and_bad_values_are_errors() {
    let good = include_str!("../../../../datasets/e4/indicators.toml");
    let brands = include_str!("../../../../datasets/e4/brands.toml");
    let typo = good.replace("[spans]\n", "[spans]\nmin_char = 3\n");
    let err = IndicatorSet::from_toml(&typo, brands).unwrap_err();
    assert!(err.to_string().contains("min_char"), "{err}");
    let unknown_weight = good.replace("offset = 1.5", "offset = 1.5\n[policy.extra]");
    assert!(IndicatorSet::from_toml(&unknown_weight, brands).is_err());
    let bad_weight = good.replace("ip_url = 2.0", "ip_urls = 2.0");
    let err = IndicatorSet::from_toml(&bad_weight, brands).unwrap_err();
    assert!(err.to_string().contains("ip_urls"), "{err}");
    let bad_regex = good.replace("'passport", "'(passport");
    assert!(matches!(
        IndicatorSet::from_toml(&bad_regex, brands),
        Err(IndicatorError::Pattern {
            list: "pii_request",
            ..
        })
    ));
    let bad_brand = brands.replacen("kind = \"bank\"", "kind = \"bank\"\ncolour = 1", 1);
    assert!(IndicatorSet::from_toml(good, &bad_brand).is_err());
    let set = IndicatorSet::from_toml(good, brands).unwrap();
    assert_eq!(
        set.indicators_sha256(),
        IndicatorSet::builtin().indicators_sha256()
    );
}

#[test]
fn display_name_mismatch() {
    let f = run(&plain(
        "Northwind Bank <alerts@nw-secure.example>",
        "Hello.",
    ));
    assert!(has(
        &f,
        "display_name_mismatch",
        "Northwind Bank <alerts@nw-secure.example>"
    ));
    let f = run(&plain("paypal.com Support <help@mailer.example>", "Hello."));
    assert!(!none(&f, "display_name_mismatch"));
    // The brand's own domain, or no brand at all: no mismatch.
    let f = run(&plain(
        "Northwind Bank <alerts@northwindbank.example>",
        "Hello.",
    ));
    assert!(none(&f, "display_name_mismatch"));
    let f = run(&plain("Dana Ortiz <dana@other.example>", "Hello."));
    assert!(none(&f, "display_name_mismatch"));
}

#[test]
fn reply_to_mismatch() {
    let raw = "From: Fabrikam <billing@fabrikam.example>\r\nReply-To: recovery.desk@freemail.example\r\n\r\nHi.";
    let f = run(raw);
    assert!(has(
        &f,
        "reply_to_mismatch",
        "recovery.desk@freemail.example"
    ));
    let raw = "From: Fabrikam <billing@fabrikam.example>\r\nReply-To: ap@mail.fabrikam.example\r\n\r\nHi.";
    assert!(none(&run(raw), "reply_to_mismatch"));
}

#[test]
fn lookalike_domains() {
    let cases = [
        // distance 1 and 2
        ("alerts@northwlnd-bank.top", "northwlnd-bank.top"),
        ("alerts@nortwindbnk.example", "nortwindbnk.example"),
        // confusable skeletons
        ("service@paypa1.com", "paypa1.com"),
        ("account@rnicrosoft.com", "rnicrosoft.com"),
        // brand label as a hyphenated token
        (
            "alerts@northwind-bank-alerts.top",
            "northwind-bank-alerts.top",
        ),
    ];
    for (addr, domain) in cases {
        let f = run(&plain(addr, "Hello."));
        assert!(has(&f, "lookalike_domain", domain), "{addr}: {f:#?}");
    }
    // Brand label as a subdomain of a foreign domain, in a link.
    let f = run(&plain(
        "a@b.example",
        "Go to https://paypal.secure-login.top/x now.",
    ));
    assert!(
        has(&f, "lookalike_domain", "paypal.secure-login.top"),
        "{f:#?}"
    );
    // Never the brand's own domains, nor unrelated ones.
    for addr in [
        "alerts@northwindbank.example",
        "s@paypal.com",
        "x@login.microsoft.com",
        "friend@maple.example",
        "ops@acme-corp.example",
    ] {
        assert!(
            none(&run(&plain(addr, "Hello.")), "lookalike_domain"),
            "{addr}"
        );
    }
}

#[test]
fn punycode_domains() {
    let f = run(&plain(
        "a@b.example",
        "Visit http://xn--80ak6aa92e.com/login today.",
    ));
    assert!(has(&f, "punycode_domain", "xn--80ak6aa92e.com"), "{f:#?}");
    let f = run(&plain(
        "a@b.example",
        "Visit https://bank.example/login today.",
    ));
    assert!(none(&f, "punycode_domain"));
}

#[test]
fn link_text_mismatch() {
    let body =
        "<p><a href=\"http://evil.example/login\">https://northwindbank.example/login</a></p>";
    let f = run(&html("Northwind <a@northwindbank.example>", body));
    assert!(
        has(
            &f,
            "link_text_mismatch",
            "https://northwindbank.example/login [link: http://evil.example/login]"
        ),
        "{f:#?}"
    );
    // A brand named in the link text, going elsewhere.
    let body = "<p><a href=\"http://evil.example/x\">Sign in to PayPal</a></p>";
    assert!(!none(
        &run(&html("a@b.example", body)),
        "link_text_mismatch"
    ));
    let body =
        "<p><a href=\"https://www.northwindbank.example/login\">northwindbank.example</a></p>";
    assert!(none(&run(&html("a@b.example", body)), "link_text_mismatch"));
}

#[test]
fn ip_urls_in_every_spelling() {
    for url in [
        "http://203.0.113.7/northwind/login",
        "http://3232235777/",
        "http://0xC0A80101/",
        "http://[2001:db8::1]/login",
    ] {
        let f = run(&plain("a@b.example", &format!("Open {url} today.")));
        assert!(has(&f, "ip_url", url), "{url}: {f:#?}");
    }
    let body = "<p><a href=\"http://203.0.113.7/x\">Verify now</a></p>";
    let f = run(&html("a@b.example", body));
    assert!(has(&f, "ip_url", "http://203.0.113.7/x"), "{f:#?}");
    assert!(none(
        &run(&plain(
            "a@b.example",
            "Open https://bank.example/1.2.3.4 today."
        )),
        "ip_url"
    ));
}

#[test]
fn url_shorteners_except_the_brands_own() {
    let f = run(&plain("a@b.example", "Track it: https://bit.ly/3xYz now."));
    assert!(has(&f, "url_shortener", "https://bit.ly/3xYz"), "{f:#?}");
    let f = run(&plain(
        "Northwind Bank <news@northwindbank.example>",
        "Read more: https://nwbk.example/abc now.",
    ));
    assert!(none(&f, "url_shortener"), "{f:#?}");
    let f = run(&plain(
        "Amazon <store@amazon.com>",
        "Your order: https://amzn.to/abc now.",
    ));
    assert!(none(&f, "url_shortener"));
    // Someone else's brand shortener is still a shortener.
    let f = run(&plain(
        "a@b.example",
        "Your order: https://amzn.to/abc now.",
    ));
    assert!(!none(&f, "url_shortener"));
}

#[test]
fn suspicious_tlds() {
    let f = run(&plain("billing@invoices-portal.xyz", "Hi."));
    assert!(has(&f, "suspicious_tld", "invoices-portal.xyz"));
    assert!(none(
        &run(&plain("billing@invoices.example", "Hi.")),
        "suspicious_tld"
    ));
}

#[test]
fn clause_phrases() {
    let body = "Dear customer,\nWe detected an unusual sign-in. Confirm your password within 24 hours or your account will be suspended.\nThanks";
    let f = run(&plain("a@b.example", body));
    let sentence = "Confirm your password within 24 hours or your account will be suspended.";
    assert!(has(&f, "credential_request", sentence), "{f:#?}");
    assert!(has(&f, "urgency_threat", sentence));
    assert!(has(&f, "urgency_threat", "We detected an unusual sign-in."));
    assert!(has(&f, "generic_greeting", "Dear customer"));

    let f = run(&plain(
        "a@b.example",
        "Please reply with your Social Security Number and date of birth.",
    ));
    assert!(has(
        &f,
        "pii_request",
        "Please reply with your Social Security Number and date of birth."
    ));
    let f = run(&plain(
        "ceo@b.example",
        "I need you to buy five Apple gift cards for a client today. Send me the codes.",
    ));
    assert!(!none(&f, "payment_request"), "{f:#?}");
    let f = run(&plain(
        "ap@b.example",
        "Our bank details have changed; please update payment information.",
    ));
    assert!(!none(&f, "payment_request"));

    // A long sentence is cut to the phrase.
    let long = format!(
        "{} verify your password {}.",
        "word ".repeat(60),
        "word ".repeat(60)
    );
    let f = run(&plain("a@b.example", &long));
    assert!(
        has(&f, "credential_request", "verify your password"),
        "{f:#?}"
    );

    // Ordinary mail.
    let f = run(&plain(
        "Dana <dana@acme-corp.example>",
        "Hi Sam,\nThe meeting notes are attached. See you on Tuesday.",
    ));
    for c in [
        "credential_request",
        "pii_request",
        "payment_request",
        "urgency_threat",
        "generic_greeting",
    ] {
        assert!(none(&f, c), "{c}: {f:#?}");
    }
}

#[test]
fn risky_attachments() {
    let with = |name: &str, ctype: &str, body: &str| {
        format!(
            "From: a@b.example\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
             --b\r\nContent-Type: text/plain\r\n\r\n{body}\r\n\
             --b\r\nContent-Type: {ctype}\r\nContent-Disposition: attachment; filename=\"{name}\"\r\n\r\nplaceholder\r\n--b--\r\n"
        )
    };
    for name in [
        "statement.pdf.html",
        "invoice.pdf.exe",
        "setup.iso",
        "run.js",
    ] {
        let f = run(&with(name, "application/octet-stream", "See attached."));
        assert!(has(&f, "risky_attachment", name), "{name}: {f:#?}");
    }
    let f = run(&with(
        "files.zip",
        "application/zip",
        "The zip password is 1234.",
    ));
    assert!(has(&f, "risky_attachment", "files.zip"), "{f:#?}");
    for name in ["statement.pdf", "files.zip", "photo.jpg"] {
        let f = run(&with(name, "application/octet-stream", "See attached."));
        assert!(none(&f, "risky_attachment"), "{name}");
    }
}

#[test]
fn freemail_corporate() {
    let f = run(&plain(
        "Jordan Lee, CEO <jordan.ceo@freemail.example>",
        "Are you at your desk?",
    ));
    assert!(
        has(&f, "freemail_corporate", "jordan.ceo@freemail.example"),
        "{f:#?}"
    );
    let f = run(&plain(
        "j.lee@mailbox.test",
        "Are you at your desk?\n\nJordan Lee\nChief Executive Officer",
    ));
    assert!(!none(&f, "freemail_corporate"), "{f:#?}");
    let f = run(&plain(
        "Sam <sam@freemail.example>",
        "Dinner on Friday?\nSam",
    ));
    assert!(none(&f, "freemail_corporate"));
}

#[test]
fn benign_sender_and_links() {
    let body = "<p>Your statement is ready: <a href=\"https://www.northwindbank.example/statements\">View statement</a></p>";
    let raw = format!(
        "From: Northwind Bank <alerts@northwindbank.example>\r\nTo: dana@acme-corp.example\r\n\
         Authentication-Results: mx.acme-corp.example; dkim=pass header.d=northwindbank.example; spf=pass smtp.mailfrom=alerts@northwindbank.example\r\n\
         Content-Type: text/html\r\n\r\n{body}"
    );
    let f = run(&raw);
    assert!(
        has(&f, "sender_brand_match", "northwindbank.example"),
        "{f:#?}"
    );
    assert!(has(
        &f,
        "aligned_links",
        "https://www.northwindbank.example/statements"
    ));
    assert!(has(
        &f,
        "auth_aligned_pass",
        "dkim=pass header.d=northwindbank.example"
    ));
    assert!(f.iter().all(|x| x.polarity == Polarity::Benign), "{f:#?}");

    // Failing or misaligned authentication, a foreign link: none of those.
    let raw = raw
        .replace(
            "dkim=pass header.d=northwindbank.example",
            "dkim=pass header.d=mailer.example",
        )
        .replace(
            "https://www.northwindbank.example/statements",
            "https://elsewhere.example/s",
        );
    let f = run(&raw);
    assert!(
        none(&f, "auth_aligned_pass") && none(&f, "aligned_links"),
        "{f:#?}"
    );
    assert!(none(
        &run(&plain("a@b.example", "Hi.")),
        "sender_brand_match"
    ));
}

#[test]
fn internal_sender() {
    let f = run(&plain(
        "Priya <priya@acme-corp.example>",
        "Notes are on https://wiki.acme-corp.example/notes today.",
    ));
    assert!(has(&f, "internal_sender", "acme-corp.example"), "{f:#?}");
    let f = run(&plain(
        "Priya <priya@acme-corp.example>",
        "Notes are on https://files.example/notes today.",
    ));
    assert!(none(&f, "internal_sender"));
}

#[test]
fn links_past_the_cut_are_judged_where_the_rendering_lists_them() {
    let limits = EmailLimits {
        body_max_chars: 20,
        ..EmailLimits::default()
    };
    let raw = plain(
        "a@b.example",
        "Hello there friend. Open http://203.0.113.7/login now.",
    );
    let email = parse_message(raw.as_bytes(), &limits).unwrap();
    let rendered = render(&email, &limits);
    let f = extract(&email, &rendered, IndicatorSet::builtin());
    assert_invariants(&rendered.text, &f);
    // The lure past the cut is listed after the marker, and judged there.
    let list = rendered
        .text
        .find("Links after the cut:")
        .expect("the list");
    let ip: Vec<&Finding> = f.iter().filter(|x| x.category == "ip_url").collect();
    assert_eq!(ip.len(), 1, "{f:#?}");
    let start_byte = rendered
        .text
        .char_indices()
        .nth(ip[0].start)
        .map(|(i, _)| i);
    assert!(
        start_byte.is_some_and(|b| b > list),
        "{}\n{f:#?}",
        rendered.text
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "From: ",
        "To: ",
        "Reply-To: ",
        "Subject: ",
        "Content-Type: text/html\r\n",
        "\r\n",
        "<a href=\"http://0x7f000001/\">",
        "</a>",
        "Northwind Bank ",
        "<x@paypa1.com>",
        "verify your password",
        " within 24 hours. ",
        "Dear customer,",
        "https://bit.ly/a",
        "ßü ",
        "é",
        "xn--80ak6aa92e.com",
        "filename=\"a.pdf.exe\"",
        ". ",
        "\n",
        "@",
        "[link: ",
        "]",
        "http://[::1]/",
        "gift cards",
        "Return-Path: <a@evil.top>\r\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn random_emails_never_panic_and_spans_hold(
            picks in proptest::collection::vec((0..PIECES.len(), any::<u8>()), 0..60)
        ) {
            let mut raw = String::new();
            for (i, b) in picks {
                raw.push_str(PIECES[i]);
                if b % 7 == 0 { raw.push(char::from(b'a' + b % 26)); }
            }
            let limits = EmailLimits::default();
            if let Ok(email) = parse_message(raw.as_bytes(), &limits) {
                let rendered = render(&email, &limits);
                let f = extract(&email, &rendered, IndicatorSet::builtin());
                assert_invariants(&rendered.text, &f);
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let limits = EmailLimits::default();
            if let Ok(email) = parse_message(&bytes, &limits) {
                let rendered = render(&email, &limits);
                let f = extract(&email, &rendered, IndicatorSet::builtin());
                assert_invariants(&rendered.text, &f);
            }
        }
    }
}

/// Each phrase category in English, Portuguese, Spanish, French and
/// German, with and without accents and in any case; the phrase found is
/// the one written (accents kept in the span).
#[test]
fn multilingual_phrases() {
    let cases: &[(&str, &str)] = &[
        // en
        (
            "credential_request",
            "Please confirm your identity to continue.",
        ),
        ("credential_request", "Click here to verify your mailbox."),
        ("credential_request", "Your password is about to expire."),
        ("urgency_threat", "Your account has been limited."),
        ("urgency_threat", "Your mailbox storage is full."),
        ("urgency_threat", "You have 3 pending delivery notices."),
        ("urgency_threat", "ACTION REQUIRED: review the notice."),
        ("urgency_threat", "We noticed unusual sign-in activity."),
        (
            "payment_request",
            "Update your billing to keep the service.",
        ),
        (
            "pii_request",
            "Confirm your personal information on the form.",
        ),
        ("generic_greeting", "Dear PayPal customer,"),
        ("generic_greeting", "Hello dana@acme-corp.example,"),
        // pt
        ("credential_request", "Confirme sua senha para continuar."),
        (
            "credential_request",
            "Faça a atualização cadastral do seu acesso.",
        ),
        ("credential_request", "VERIFIQUE SUA IDENTIDADE agora."),
        ("pii_request", "Informe seu CPF e a data de nascimento."),
        ("payment_request", "Efetue o pagamento do boleto em aberto."),
        ("urgency_threat", "Sua conta será bloqueada hoje."),
        ("urgency_threat", "Detectamos um acesso não autorizado."),
        ("urgency_threat", "Sua caixa de correio está cheia."),
        ("generic_greeting", "Prezado cliente,"),
        // es
        ("credential_request", "Verifique su contraseña hoy."),
        (
            "credential_request",
            "Inicie sesión para verificar su cuenta.",
        ),
        ("pii_request", "Indique su fecha de nacimiento."),
        (
            "payment_request",
            "Realice el pago de la factura pendiente.",
        ),
        ("urgency_threat", "Su cuenta será suspendida."),
        ("urgency_threat", "Detectamos actividad inusual."),
        ("generic_greeting", "Estimado cliente,"),
        // fr
        ("credential_request", "Confirmez votre mot de passe ici."),
        (
            "credential_request",
            "Vérifiez votre identité sans attendre.",
        ),
        ("pii_request", "Indiquez votre date de naissance."),
        ("payment_request", "Réglez la facture impayée."),
        ("urgency_threat", "Votre compte sera suspendu."),
        (
            "urgency_threat",
            "Une connexion inhabituelle a été détectée.",
        ),
        ("generic_greeting", "Cher client,"),
        // de
        ("credential_request", "Bitte bestätigen Sie Ihr Passwort."),
        (
            "credential_request",
            "Um Ihre Identität zu bestätigen, klicken Sie hier.",
        ),
        ("pii_request", "Bitte senden Sie Ihr Geburtsdatum."),
        ("payment_request", "Wir haben eine neue Bankverbindung."),
        ("urgency_threat", "Ihr Konto wurde vorübergehend gesperrt."),
        (
            "urgency_threat",
            "Wir haben ungewöhnliche Aktivitäten festgestellt.",
        ),
        ("generic_greeting", "Sehr geehrter Kunde,"),
    ];
    for (category, body) in cases {
        let f = run(&plain("a@b.example", body));
        assert!(!none(&f, category), "{category}: {body}: {f:#?}");
    }
    // Accents dropped by the sender still match; the span keeps the text.
    let f = run(&plain("a@b.example", "Sua conta sera bloqueada hoje."));
    assert!(has(&f, "urgency_threat", "Sua conta sera bloqueada hoje."));
    // An invisible character inside a phrase does not hide it.
    let f = run(&plain("a@b.example", "Verify your pass\u{200B}word now."));
    assert!(!none(&f, "credential_request"), "{f:#?}");
}

/// Ordinary mail in each language raises no phrase indicator.
#[test]
fn multilingual_ordinary_mail_is_quiet() {
    let bodies = [
        "Hi Sam,\nThe meeting notes are attached. Please confirm your attendance by Friday.\nThanks",
        "Your order has shipped and will arrive in 2 days. Track it in your account.",
        "Olá Ana,\nSegue em anexo a cópia do documento da reunião. Seus dados pessoais são tratados conforme a LGPD.\nAbraços",
        "Hola Luis,\nTe envío el resumen de la reunión. Tratamos sus datos personales según nuestra política.\nSaludos",
        "Bonjour Claire,\nVoici le compte rendu. La livraison se fait sous 48 heures.\nCordialement",
        "Hallo Jonas,\nab sofort ist das Büro am Freitag geschlossen. Die Rechnung zahlen Sie per Überweisung.\nViele Grüße",
    ];
    for body in bodies {
        let f = run(&plain("Dana <dana@acme-corp.example>", body));
        for c in [
            "credential_request",
            "pii_request",
            "payment_request",
            "urgency_threat",
            "generic_greeting",
        ] {
            assert!(none(&f, c), "{c}: {body}: {f:#?}");
        }
    }
}

/// A message with the given extra header lines and a plain body.
fn with_headers(headers: &str, body: &str) -> String {
    format!("{headers}Subject: Notice\r\n\r\n{body}")
}

#[test]
fn auth_aligned_pass_needs_an_official_or_recipient_domain() {
    let auth = |d: &str| {
        format!("Authentication-Results: mx.acme-corp.example; dkim=pass header.d={d}; spf=pass smtp.mailfrom=bounce@{d}\r\n")
    };
    // The brand's own domain (benign_sender_and_links) and the recipient
    // organisation's own domain pass.
    let raw = with_headers(
        &format!(
            "From: Priya <priya@acme-corp.example>\r\nTo: dana@acme-corp.example\r\n{}",
            auth("acme-corp.example")
        ),
        "Lunch at noon?",
    );
    assert!(!none(&run(&raw), "auth_aligned_pass"));
    // An attacker's own domain passing its own checks is no benign sign,
    // whether or not the display name claims a brand.
    for from in [
        "Northwind Bank <alerts@northwind-secure.example>",
        "Billing <billing@invoice-center.example>",
    ] {
        let d = from.rsplit('@').next().unwrap().trim_end_matches('>');
        let raw = with_headers(
            &format!("From: {from}\r\nTo: dana@acme-corp.example\r\n{}", auth(d)),
            "Your invoice is attached.",
        );
        let f = run(&raw);
        assert!(none(&f, "auth_aligned_pass"), "{from}: {f:#?}");
    }
    let set = IndicatorSet::builtin();
    assert!(set.weight("auth_aligned_pass").unwrap() > -1.0);
}

#[test]
fn internal_sender_needs_a_real_recipient() {
    // Bulk mail Bcc'd to its victims: To is the sender, or undisclosed.
    for to in [
        "To: priya@acme-corp.example\r\n",
        "To: undisclosed-recipients:;\r\n",
        "To: Undisclosed recipients <undisclosed-recipients@acme-corp.example>\r\n",
        "",
    ] {
        let raw = with_headers(
            &format!("From: Priya <priya@acme-corp.example>\r\n{to}"),
            "Notes are on https://wiki.acme-corp.example/notes today.",
        );
        let f = run(&raw);
        assert!(none(&f, "internal_sender"), "{to}: {f:#?}");
    }
    // Another colleague, first or second in the list.
    let raw = with_headers(
        "From: Priya <priya@acme-corp.example>\r\nTo: priya@acme-corp.example, Sam <sam@acme-corp.example>\r\n",
        "Notes are on https://wiki.acme-corp.example/notes today.",
    );
    assert!(!none(&run(&raw), "internal_sender"));
}

#[test]
fn reply_to_on_mailing_lists() {
    let base =
        "To: dev@lists.acme-corp.example\r\nList-Id: Developers <dev.lists.acme-corp.example>\r\n";
    // Replies to the list, or mail from the list with replies to the author.
    for headers in [
        "From: Sam <sam@freemail.example>\r\nReply-To: dev@lists.acme-corp.example\r\n",
        "From: Sam via dev <dev@lists.acme-corp.example>\r\nReply-To: sam@freemail.example\r\n",
    ] {
        let raw = with_headers(&format!("{headers}{base}"), "Patch attached.");
        let f = run(&raw);
        assert!(none(&f, "reply_to_mismatch"), "{headers}: {f:#?}");
    }
    // A List-Id naming another domain does not excuse a diverted Reply-To.
    let raw = with_headers(
        &format!(
            "From: Fabrikam <billing@fabrikam.example>\r\nReply-To: desk@freemail.example\r\n{base}"
        ),
        "Hi.",
    );
    assert!(!none(&run(&raw), "reply_to_mismatch"));
}

#[test]
fn invisible_characters_in_names_and_subjects() {
    // Hidden inside the brand: the mismatch is still seen, and flagged.
    for name in ["Pay\u{200B}Pal", "Pay\u{E0020}Pal", "Pay\u{FEFF}Pal"] {
        let raw = plain(
            &format!("{name} <service@account-notice.example>"),
            "Hello.",
        );
        let f = run(&raw);
        assert!(!none(&f, "display_name_mismatch"), "{name:?}: {f:#?}");
        assert!(!none(&f, "invisible_characters"), "{name:?}: {f:#?}");
    }
    let raw = "From: a@b.example\r\nSubject: Your acc\u{200C}ount is on hold\r\n\r\nHi.";
    let f = run(raw);
    assert!(
        // The rendering shows the character as its marker; the span quotes it.
        has(
            &f,
            "invisible_characters",
            "Your acc[U+200C]ount is on hold"
        ),
        "{f:#?}"
    );
    // The rendering's `[U+XXXX]` marker reads the same as the character.
    let set = IndicatorSet::builtin();
    assert_eq!(
        set.brand_named_in("Pay[U+200B]Pal"),
        set.brand_named_in("PayPal")
    );
    assert!(set.brand_named_in("PayPal").is_some());
    // A right-to-left override anywhere in the subject.
    let raw = "From: a@b.example\r\nSubject: Invoice \u{202E}fdp.exe\r\n\r\nHi.";
    assert!(!none(&run(raw), "invisible_characters"));
    // An emoji sequence joined by U+200D, a direction mark after a
    // right-to-left name, or plain text: nothing.
    for subject in [
        "\u{5E9}\u{5DC}\u{5D5}\u{5DD}\u{200F} team",
        "Family day \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
        "Lunch",
    ] {
        let raw = format!("From: Dana <dana@b.example>\r\nSubject: {subject}\r\n\r\nHi.");
        assert!(none(&run(&raw), "invisible_characters"), "{subject}");
    }
}

#[test]
fn ip_url_needs_a_url() {
    // Dotted numbers in running text are versions, relays, SPF text.
    for body in [
        "Upgrade to v2.10.3.1 tonight.",
        "Received: from mx (203.0.113.7) by relay.example",
        "spf=pass (sender IP is 198.51.100.4) smtp.mailfrom=a.example",
        "The build 1.2.3.4 is out.",
    ] {
        assert!(none(&run(&plain("a@b.example", body)), "ip_url"), "{body}");
    }
    let f = run(&plain("a@b.example", "Open http://198.51.100.4/login now."));
    assert!(has(&f, "ip_url", "http://198.51.100.4/login"), "{f:#?}");
}

#[test]
fn suspicious_tld_and_punycode_need_a_host_position() {
    // File names and CJK sentences are not domains.
    for body in [
        "Please open invoice.zip and the notes in readme.md today.",
        "The clip is in holiday.mov as agreed.",
        "请访问example.com了解详情",
        "您好，请查看附件。关于.com的问题",
        "欢迎访问我们的网站www.example.com。谢谢",
        "文件名为报告.pdf，请查收",
        "会议纪要.docx 已上传",
    ] {
        let f = run(&plain("a@b.example", body));
        assert!(
            none(&f, "suspicious_tld") && none(&f, "punycode_domain"),
            "{body}: {f:#?}"
        );
    }
    // URLs, addresses and link texts count whatever they end in.
    let f = run(&plain(
        "a@b.example",
        "Open https://files-portal.zip/inv now.",
    ));
    assert!(has(&f, "suspicious_tld", "files-portal.zip"), "{f:#?}");
    let f = run(&plain(
        "a@b.example",
        "Log in at secure-portal.top/login now.",
    ));
    assert!(has(&f, "suspicious_tld", "secure-portal.top"), "{f:#?}");
    let body = "<p><a href=\"https://x.example/a\">secure-portal.top</a></p>";
    let f = run(&html("a@b.example", body));
    assert!(has(&f, "suspicious_tld", "secure-portal.top"), "{f:#?}");
    let f = run(&plain(
        "a@b.example",
        "请访问 http://xn--80ak6aa92e.com/login 谢谢",
    ));
    assert!(has(&f, "punycode_domain", "xn--80ak6aa92e.com"), "{f:#?}");
    // A CJK full stop ends the host.
    let f = run(&plain("a@b.example", "请访问https://bank.example。谢谢"));
    assert!(none(&f, "punycode_domain"), "{f:#?}");
    // An `@` in a display name is not an address.
    let f = run(&plain("客服@公司 <help@bank.example>", "Hi."));
    assert!(none(&f, "punycode_domain"), "{f:#?}");
}

#[test]
fn link_text_mismatch_through_security_gateways() {
    let wrapped = [
        "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fwww.northwindbank.example%2Flogin&amp;data=05",
        "https://urldefense.proofpoint.com/v2/url?u=https-3A__www.northwindbank.example_login&amp;d=DwMF",
        "https://urldefense.com/v3/__https://www.northwindbank.example/login__;!!AbC$",
        "https://protect-us.mimecast.com/s/AbCd?domain=northwindbank.example",
        "https://linkprotect.cudasvc.com/url?a=https%3a%2f%2fwww.northwindbank.example%2flogin&amp;c=E,1",
        "https://secure-web.cisco.com/1AbC/https%3A%2F%2Fwww.northwindbank.example%2Flogin",
    ];
    for href in wrapped {
        let body = format!("<p><a href=\"{href}\">https://www.northwindbank.example/login</a></p>");
        let f = run(&html("Northwind <a@northwindbank.example>", &body));
        assert!(none(&f, "link_text_mismatch"), "{href}: {f:#?}");
    }
    // The wrapped URL goes elsewhere: still a mismatch.
    let href = "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fevil.example%2Flogin&amp;data=05";
    let body = format!("<p><a href=\"{href}\">https://www.northwindbank.example/login</a></p>");
    let f = run(&html("Northwind <a@northwindbank.example>", &body));
    assert!(!none(&f, "link_text_mismatch"), "{f:#?}");
    // A gateway link that cannot be read: no claim either way.
    let href = "https://nam02.safelinks.protection.outlook.com/?data=05";
    let body = format!("<p><a href=\"{href}\">https://www.northwindbank.example/login</a></p>");
    let f = run(&html("Northwind <a@northwindbank.example>", &body));
    assert!(
        none(&f, "link_text_mismatch") && none(&f, "aligned_links"),
        "{f:#?}"
    );
}

/// Bank-change and payroll wording, in each language.
#[test]
fn bank_change_and_payroll_phrases() {
    let cases: &[(&str, &str)] = &[
        ("payment_request", "We have changed banks; please use our new bank account."),
        ("payment_request", "Mudamos de banco. Use a nossa nova conta."),
        ("payment_request", "Hemos cambiado de banco: esta es nuestra nueva cuenta."),
        ("payment_request", "Mise à jour de nos coordonnées bancaires."),
        ("payment_request", "Wegen Bankwechsel gilt unser neues Konto."),
        ("pii_request", "Please update your direct deposit details before Friday."),
        ("pii_request", "Les salariés qui n'auront pas confirmé leurs coordonnées bancaires seront payés en retard."),
        ("pii_request", "Bitte bestätigen Sie Ihre Bankverbindung."),
        ("pii_request", "Actualice sus datos de nómina."),
    ];
    for (category, body) in cases {
        let f = run(&plain("a@b.example", body));
        assert!(!none(&f, category), "{category}: {body}: {f:#?}");
    }
    let f = run(&plain(
        "a@b.example",
        "Our bank holiday schedule has changed. The new account manager is Sam.",
    ));
    assert!(
        none(&f, "payment_request") && none(&f, "pii_request"),
        "{f:#?}"
    );
}

#[test]
fn lookalikes_of_the_recipients_own_domain() {
    for from in [
        "ceo@acme-c0rp.example",
        "ceo@acmecorp.example",
        "payroll@acme-corp-payroll.top",
    ] {
        let f = run(&plain(&format!("Jordan <{from}>"), "Are you at your desk?"));
        assert!(!none(&f, "lookalike_domain"), "{from}: {f:#?}");
    }
    // The recipient's own domain, or an unrelated one: no lookalike.
    for from in ["ceo@acme-corp.example", "sam@globex.example"] {
        let f = run(&plain(&format!("Jordan <{from}>"), "Are you at your desk?"));
        assert!(none(&f, "lookalike_domain"), "{from}: {f:#?}");
    }
    // A free-mail recipient is no organisation to imitate.
    let raw = "From: News <news@webmail-tips.example>\r\nTo: sam@webmail.example\r\n\r\nHi.";
    assert!(none(&run(raw), "lookalike_domain"));
}

#[test]
fn lookalikes_of_a_correspondent_earlier_in_the_thread() {
    let body = |from: &str| {
        format!(
            "Here is the updated invoice.\n\nOn Mon, Sophie Renard <sophie@{from}> wrote:\n> Delivery is on Thursday."
        )
    };
    let f = run(&plain(
        "Sophie Renard <sophie@be1cour-supplies.example>",
        &body("belcour.example"),
    ));
    assert!(
        has(&f, "lookalike_domain", "be1cour-supplies.example"),
        "{f:#?}"
    );
    // Same domain, or another person quoted: nothing.
    let f = run(&plain(
        "Sophie Renard <sophie@belcour.example>",
        &body("belcour.example"),
    ));
    assert!(none(&f, "lookalike_domain"), "{f:#?}");
    let f = run(&plain(
        "Sam Ortiz <sam@be1cour-supplies.example>",
        &body("belcour.example"),
    ));
    assert!(none(&f, "lookalike_domain"), "{f:#?}");
}

#[test]
fn aligned_links_need_a_sender_that_is_not_suspect() {
    let body = "<p><a href=\"https://paie-portal.top/login\">Sign in</a></p>";
    let f = run(&html("HR <hr@paie-portal.top>", body));
    assert!(none(&f, "aligned_links"), "{f:#?}");
    let body = "<p><a href=\"https://globex.example/login\">Sign in</a></p>";
    let f = run(&html("HR <hr@globex.example>", body));
    assert!(!none(&f, "aligned_links"), "{f:#?}");
}

#[test]
fn click_tracking_of_an_authenticated_sender_is_no_mismatch() {
    let raw = |auth: &str| {
        format!(
            "From: Cerisaie <news@cerisaie.example>\r\nTo: dana@acme-corp.example\r\n{auth}\
             Subject: News\r\nContent-Type: text/html\r\n\r\n\
             <p><a href=\"https://links.esp-mailer.example/ls/click?upn=abc\">www.cerisaie.example</a></p>"
        )
    };
    let pass = "Authentication-Results: mx.acme-corp.example; dkim=pass header.d=cerisaie.example; spf=pass smtp.mailfrom=cerisaie.example\r\n";
    assert!(none(&run(&raw(pass)), "link_text_mismatch"));
    // Unauthenticated (a spoofed From): the same link is a mismatch.
    let f = run(&raw(""));
    assert!(!none(&f, "link_text_mismatch"), "{f:#?}");
}

#[test]
fn mailbox_full_and_address_greetings_in_each_language() {
    let cases: &[(&str, &str)] = &[
        (
            "urgency_threat",
            "Ihr Postfach hat 99 % des verfügbaren Speicherplatzes erreicht.",
        ),
        (
            "urgency_threat",
            "Eingehende Nachrichten werden an den Absender zurückgeschickt.",
        ),
        (
            "urgency_threat",
            "Su buzón ha alcanzado el 99 % de su capacidad.",
        ),
        (
            "urgency_threat",
            "Los mensajes entrantes se devolverán al remitente.",
        ),
        (
            "urgency_threat",
            "Votre boîte de réception a atteint sa limite.",
        ),
        ("urgency_threat", "A sua caixa de correio atingiu o limite."),
        (
            "urgency_threat",
            "Your mailbox has reached 99% of its quota.",
        ),
        ("generic_greeting", "Hallo jana.vogel@falkner.example,"),
        ("generic_greeting", "Estimado/a lucia@ribera.example:"),
        ("generic_greeting", "Cher contribuable,"),
        ("urgency_threat", "Seus pontos vão expirar amanhã."),
        ("urgency_threat", "Regularize sua situação cadastral."),
        ("urgency_threat", "Sus puntos caducan este mes."),
        (
            "credential_request",
            "We were unable to verify your account information.",
        ),
        (
            "pii_request",
            "Colaboradores que não confirmarem os dados bancários até o dia 25.",
        ),
    ];
    for (category, body) in cases {
        let f = run(&plain("a@b.example", body));
        assert!(!none(&f, category), "{category}: {body}: {f:#?}");
    }
    // A greeting by name is not generic.
    let f = run(&plain("a@b.example", "Hallo Jana,\nbis morgen."));
    assert!(none(&f, "generic_greeting"), "{f:#?}");
}
