//! Past the cut: a body longer than `body_max_chars` is cut, and the links
//! it no longer shows are listed after `[… truncated]`, so that the model can
//! read them and the extractor can cite them (a padding thread, then the
//! lure, is a real pattern).

use svbench_mail::{extract, parse_message, render, EmailLimits, IndicatorSet};

const PADDING: &str =
    "<p>On Monday the team met to review the quarterly figures and agreed on next steps.</p>";

fn padded_html(links_after: &str) -> String {
    format!(
        "From: IT Desk <it@helpdesk.example>\r\nSubject: Re: figures\r\nContent-Type: text/html\r\n\r\n\
         <p>See <a href=\"https://wiki.acme.example/q3\">the wiki</a></p>{}{links_after}",
        PADDING.repeat(120)
    )
}

#[test]
fn links_after_the_cut_are_listed_once_and_can_be_cited() {
    let raw = padded_html(
        "<p><a href=\"http://203.0.113.9/login\">https://portal.acme.example/login</a>\
         <a href=\"http://203.0.113.9/login\">again</a>\
         <a href=\"https://wiki.acme.example/q3\">the wiki</a>\
         <a href=\"https://short.example/x\">https://short.example/x</a></p>",
    );
    let limits = EmailLimits::default();
    let email = parse_message(raw.as_bytes(), &limits).unwrap();
    let r = render(&email, &limits);
    assert!(r.truncated);
    assert_eq!(r.links.len(), 5, "links of the whole body");
    let tail = r.text.split_once("[… truncated]\n").expect("cut").1;
    assert_eq!(
        tail,
        "Links after the cut:\n\
         - https://portal.acme.example/login [link: http://203.0.113.9/login]\n\
         - [link: https://short.example/x]"
    );
    // Every link is somewhere in the text.
    for link in &r.links {
        assert!(r.text.contains(&link.href), "{}", link.href);
    }
    let findings = extract(&email, &r, IndicatorSet::builtin());
    let cut = r.text.find("Links after the cut:").unwrap();
    let cut_chars = r.text[..cut].chars().count();
    for category in ["ip_url", "link_text_mismatch"] {
        assert!(
            findings
                .iter()
                .any(|f| f.category == category && f.start > cut_chars),
            "{category}: {findings:#?}"
        );
    }
}

#[test]
fn a_short_body_has_no_list_and_the_list_is_bounded() {
    let limits = EmailLimits::default();
    let short =
        "From: a@b.example\r\nContent-Type: text/html\r\n\r\n<a href=\"https://x.example/\">x</a>";
    let r = render(&parse_message(short.as_bytes(), &limits).unwrap(), &limits);
    assert!(!r.text.contains("Links after the cut"));

    let many: String = (0..300)
        .map(|i| format!("<a href=\"https://t{i}.example/{}\">l</a> ", "p".repeat(80)))
        .collect();
    let raw = padded_html(&many);
    let r = render(&parse_message(raw.as_bytes(), &limits).unwrap(), &limits);
    let tail = r.text.split_once("Links after the cut:\n").unwrap().1;
    let lines: Vec<&str> = tail.lines().collect();
    assert!(lines.len() <= limits.max_links + 1, "{}", lines.len());
    let listed_chars: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
    assert!(listed_chars <= limits.body_max_chars + 40, "{listed_chars}");
    assert!(
        lines.last().unwrap().starts_with("[… "),
        "{:?}",
        lines.last()
    );
    assert!(lines.last().unwrap().ends_with(" more links]"));
}

#[test]
fn plain_bodies_list_their_urls_after_the_cut() {
    let body = format!(
        "{}\r\nPay at https://pay.example/invoice today.\r\n",
        "word ".repeat(1_500)
    );
    let raw = format!("From: a@b.example\r\n\r\n{body}");
    let limits = EmailLimits::default();
    let r = render(&parse_message(raw.as_bytes(), &limits).unwrap(), &limits);
    assert!(
        r.text.ends_with(
            "[… truncated]\nLinks after the cut:\n- [link: https://pay.example/invoice]"
        ),
        "{}",
        &r.text[r.text.len() - 120..]
    );
}
