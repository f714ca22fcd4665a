//! Hostile emails: parsing and rendering stay bounded and never panic.

use proptest::prelude::*;
use svbench_mail::{parse_message, render, EmailError, EmailLimits, MboxItem, MboxReader};

fn parse_and_render(raw: &[u8]) -> Option<String> {
    let limits = EmailLimits::default();
    parse_message(raw, &limits)
        .ok()
        .map(|e| render(&e, &limits).text)
}

#[test]
fn multiparts_nested_a_thousand_deep() {
    let mut raw =
        String::from("Subject: deep\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n");
    for i in 0..1_000 {
        raw.push_str(&format!(
            "--b{i}\r\nContent-Type: multipart/mixed; boundary=\"b{}\"\r\n\r\n",
            i + 1
        ));
    }
    raw.push_str("--b1000\r\nContent-Type: text/plain\r\n\r\ninnermost\r\n");
    let text = parse_and_render(raw.as_bytes()).expect("parses");
    assert!(text.starts_with("Subject: deep\n"));
}

#[test]
fn an_unterminated_multipart_and_an_unknown_charset() {
    let raw = "Subject: x\r\nContent-Type: multipart/alternative; boundary=\"zz\"\r\n\r\n--zz\r\n\
               Content-Type: text/plain; charset=x-no-such-charset\r\n\r\nhello there";
    let text = parse_and_render(raw.as_bytes()).expect("parses");
    assert!(text.contains("hello there"), "{text}");
}

#[test]
fn a_large_attachment_is_listed_not_inlined() {
    let mut raw = String::from(
        "Subject: big\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n\
         --b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"big.bin\"\r\n\r\n",
    );
    raw.push_str(&"A".repeat(50 << 20));
    raw.push_str("\r\n--b--\r\n");
    let text = parse_and_render(raw.as_bytes()).expect("parses");
    assert!(
        text.contains("Attachments: big.bin (application/octet-stream, 50.0 MB)"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.len() < 1_000);
    let small = EmailLimits {
        max_message_bytes: 1 << 20,
        ..EmailLimits::default()
    };
    assert!(matches!(
        parse_message(raw.as_bytes(), &small),
        Err(EmailError::TooLarge { .. })
    ));
}

#[test]
fn html_bombs_and_nul_bytes() {
    let deep = format!(
        "Content-Type: text/html\r\n\r\n{}x",
        "<div><span>".repeat(200_000)
    );
    parse_and_render(deep.as_bytes()).expect("parses");
    let entities = format!(
        "Content-Type: text/html\r\n\r\n<p>{}</p>",
        "&amp;&lt;&#x1F600;".repeat(200_000)
    );
    let text = parse_and_render(entities.as_bytes()).expect("parses");
    assert!(text.ends_with("[… truncated]"));
    let nul = b"Subject: a\0b\r\n\r\nbody\0with nul";
    parse_and_render(nul).expect("parses");
    assert_eq!(
        parse_message(b"", &EmailLimits::default()),
        Err(EmailError::NotAMessage)
    );
}

#[test]
fn an_mbox_yields_each_message_in_order() {
    let mbox = b"From alice@bank.test Tue Mar  4 09:12:44 2025\nSubject: one\n\nfirst body\n\n\
                 From bob@shop.test Tue Mar  4 10:00:00 2025\nSubject: two\n\n>From the desk\n";
    let limits = EmailLimits::default();
    let subjects: Vec<_> = MboxReader::new(&mbox[..], &limits)
        .map(|item| match item.expect("reads") {
            MboxItem::Message(raw) => parse_message(&raw, &limits).expect("parses"),
            other => panic!("{other:?}"),
        })
        .map(|e| e.headers.subject.unwrap_or_default())
        .collect();
    assert_eq!(subjects, ["one", "two"]);
    assert_eq!(MboxReader::new(&b""[..], &limits).count(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2_000)) {
        let _ = parse_and_render(&raw);
    }

    #[test]
    fn arbitrary_html_never_panics(body in "(<[a-z]{1,3}( style=\"display:none\")?>|</[a-z]{1,3}>|&[a-z#0-9]{0,5};?|[ a-z\n]{0,8}|<a href=\"[a-z:/.]{0,12}\">){0,60}") {
        let raw = format!("Content-Type: text/html\r\n\r\n{body}");
        let text = parse_and_render(raw.as_bytes()).expect("an HTML body always parses");
        prop_assert!(!text.contains("\n\n\n"));
    }
}
