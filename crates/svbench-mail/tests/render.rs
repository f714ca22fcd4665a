//! Rendering fixtures (version 2): what the model reads, and what evidence
//! is checked against, for the message shapes mail clients meet.

use svbench_mail::{parse_message, render, EmailLimits};

fn rendered(raw: &str) -> String {
    let limits = EmailLimits::default();
    let email = parse_message(raw.as_bytes(), &limits).expect("parses");
    let a = render(&email, &limits);
    // Deterministic: the same message renders to the same bytes.
    assert_eq!(a, render(&email, &limits));
    a.text
}

#[test]
fn multipart_alternative_renders_the_html_part() {
    let raw = "From: Shop <news@shop.test>\r\nSubject: Sale\r\nMIME-Version: 1.0\r\n\
               Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
               --b\r\nContent-Type: text/plain\r\n\r\nPlain version\r\n\
               --b\r\nContent-Type: text/html\r\n\r\n<p>HTML <b>version</b></p>\r\n--b--\r\n";
    assert_eq!(
        rendered(raw),
        "From: Shop <news@shop.test>\nSubject: Sale\n\nHTML version"
    );
}

#[test]
fn html_only_and_plain_only_bodies() {
    let html = "From: a@b.test\r\nContent-Type: text/html\r\n\r\n<div>One</div><ul><li>two</li><li>three</li></ul>";
    assert_eq!(rendered(html), "From: a@b.test\n\nOne\n- two\n- three");
    let plain = "From: a@b.test\r\n\r\nLine one\r\n\r\n\r\n\r\nLine two   \r\n";
    assert_eq!(rendered(plain), "From: a@b.test\n\nLine one\n\nLine two");
}

#[test]
fn encoded_words_in_headers_are_decoded() {
    let raw = "From: =?iso-8859-1?q?Andr=E9?= <andre@b.test>\r\n\
               Subject: =?utf-8?b?VmVyaWZ5IHlvdXIgYWNjb3VudA==?=\r\n\r\nhi";
    assert_eq!(
        rendered(raw),
        "From: André <andre@b.test>\nSubject: Verify your account\n\nhi"
    );
}

#[test]
fn a_punycode_sender_is_rendered_as_written() {
    let raw = "From: PayPal <service@xn--pypal-4ve.com>\r\n\r\nhi";
    assert_eq!(
        rendered(raw),
        "From: PayPal <service@xn--pypal-4ve.com>\n\nhi"
    );
}

#[test]
fn hidden_text_is_skipped_and_recorded() {
    let raw = "From: a@b.test\r\nContent-Type: text/html\r\n\r\n\
               <p>Visible</p><p style=\"display: none\">invisible words</p>\
               <span style=\"font-size:0\">zero</span>";
    let limits = EmailLimits::default();
    let r = render(&parse_message(raw.as_bytes(), &limits).unwrap(), &limits);
    assert_eq!(r.text, "From: a@b.test\n\nVisible");
    assert!(r.hidden_text);
}

#[test]
fn anchors_show_the_href_unless_the_text_is_the_url() {
    let raw = "From: a@b.test\r\nContent-Type: text/html\r\n\r\n\
               <p><a href=\"https://www.bank.test/\">bank.test</a> and \
               <a href=\"http://203.0.113.7/x\">Verify now</a></p>";
    assert_eq!(
        rendered(raw),
        "From: a@b.test\n\nbank.test and Verify now [link: http://203.0.113.7/x]"
    );
}

#[test]
fn attachments_are_listed_not_inlined() {
    let raw = "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n\
               --m\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n\
               --m\r\nContent-Type: text/html; name=\"statement.pdf.html\"\r\n\
               Content-Disposition: attachment; filename=\"statement.pdf.html\"\r\n\r\n\
               <script>steal()</script>\r\n--m--\r\n";
    let text = rendered(raw);
    assert!(
        text.contains("Attachments: statement.pdf.html (text/html, "),
        "{text}"
    );
    assert!(!text.contains("steal"), "{text}");
    assert!(text.ends_with("See attached."), "{text}");
}

#[test]
fn long_bodies_are_truncated_with_a_marker() {
    let body = "word ".repeat(3000);
    let raw = format!("From: a@b.test\r\n\r\n{body}");
    let text = rendered(&raw);
    assert!(
        text.ends_with("\n[… truncated]"),
        "{}",
        &text[text.len() - 40..]
    );
    let body_chars = text.split_once("\n\n").unwrap().1.chars().count();
    assert!(body_chars <= 6000 + "\n[… truncated]".chars().count());
}
