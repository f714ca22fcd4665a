//! Malformed MIME read as mail clients read it, and headers decoded per
//! RFC 2047: the only text part is rendered as the body, never listed as an
//! `unnamed` attachment; what cannot be decoded says so.

use svbench_mail::{parse_message, render, EmailLimits};

fn rendered(raw: &[u8]) -> String {
    let limits = EmailLimits::default();
    let email = parse_message(raw, &limits).expect("parses");
    render(&email, &limits).text
}

#[test]
fn a_content_type_missing_its_semicolon() {
    // windows-1252 `é` (0xE9): the charset must be read to decode it.
    let raw = b"From: a@b.test\r\nContent-Type: text/html charset=windows-1252\r\n\r\n\
                <p>Caf\xe9 menu: open the <a href=\"https://menu.example/\">menu</a></p>";
    assert_eq!(
        rendered(raw),
        "From: a@b.test\n\nCaf\u{e9} menu: open the menu [link: https://menu.example/]"
    );
    // Inside a multipart, with the charset quoted.
    let raw = b"From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
                --b\r\nContent-Type: text/html charset=\"windows-1252\"\r\n\r\n<p>Dear Dana, na\xefve</p>\r\n--b--\r\n";
    assert_eq!(rendered(raw), "From: a@b.test\n\nDear Dana, na\u{ef}ve");
}

#[test]
fn a_multipart_whose_boundary_follows_no_semicolon() {
    let raw = "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative boundary=\"alt\"\r\n\r\n\
               --alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlain version\r\n\
               --alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Your <b>invoice</b> is ready</p>\r\n--alt--\r\n";
    assert_eq!(
        rendered(raw.as_bytes()),
        "From: a@b.test\n\nYour invoice is ready"
    );
}

#[test]
fn a_base64_body_followed_by_a_plain_footer() {
    // "<p>Your parcel is on hold.</p>" then a gateway's footer.
    let html = "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n\
                --m\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n\
                PHA+WW91ciBwYXJjZWwgaXMgb24gaG9sZC48L3A+\r\n\r\n\
                ___\r\nScanned by the gateway of example.net\r\n--m--\r\n";
    let text = rendered(html.as_bytes());
    assert_eq!(
        text,
        "From: a@b.test\n\nYour parcel is on hold.\n___ Scanned by the gateway of example.net"
    );
    assert!(!text.contains("unnamed"), "{text}");
    // A single plain part: the footer stays, the base64 is decoded.
    let plain = "From: a@b.test\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n\
                 SGVsbG8gRGFuYSwgcGxlYXNlIHJldmlldyB0aGUgaW52b2ljZS4=\r\n\r\n--\r\nSent via list.example\r\n";
    assert_eq!(
        rendered(plain.as_bytes()),
        "From: a@b.test\n\nHello Dana, please review the invoice.\n--\nSent via list.example"
    );
}

#[test]
fn the_only_text_part_is_never_an_attachment() {
    // An unnamed text part of a type mail-parser does not take as a body.
    let raw = "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n\
               --m\r\nContent-Type: text/enriched\r\n\r\nPlease confirm the transfer today.\r\n--m--\r\n";
    let text = rendered(raw.as_bytes());
    assert!(
        text.ends_with("\n\nPlease confirm the transfer today."),
        "{text}"
    );
    assert!(!text.contains("Attachments:"), "{text}");
    // A named attachment stays an attachment.
    let raw = "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n\
               --m\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n\
               --m\r\nContent-Type: text/html charset=utf-8\r\nContent-Disposition: attachment; filename=\"a.html\"\r\n\r\n<p>x</p>\r\n--m--\r\n";
    let text = rendered(raw.as_bytes());
    assert!(text.contains("Attachments: a.html ("), "{text}");
    assert!(text.ends_with("\n\nSee attached."), "{text}");
}

#[test]
fn eight_bit_text_in_the_wrong_charset_falls_back_to_windows_1252() {
    let raw = b"From: a@b.test\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nA\xe7\xe3o necess\xe1ria";
    assert_eq!(
        rendered(raw),
        "From: a@b.test\n\nA\u{e7}\u{e3}o necess\u{e1}ria"
    );
}

#[test]
fn an_undecodable_part_says_so() {
    let mut raw = b"From: a@b.test\r\nContent-Type: text/html charset=utf-8\r\n\r\n".to_vec();
    raw.extend((0..3000u32).map(|i| [0xff_u8, 0x01, 0xfe][i as usize % 3]));
    assert_eq!(
        rendered(&raw),
        "From: a@b.test\n\n[undecodable part: text/html, 3 KB]"
    );
}

#[test]
fn adjacent_encoded_words_join_without_a_space() {
    let raw = "From: \"=?utf-8?B?TWljcm8=?= =?utf-8?B?c29mdA==?=\" <security@micros0ft.example>\r\n\
               Reply-To: \"=?utf-8?Q?Acc?=\r\n =?utf-8?Q?ount_team?=\" <x@y.example>\r\n\
               Subject: \"=?utf-8?B?TWljcm8=?= =?utf-8?B?c29mdA==?=\" notice\r\n\
               Authentication-Results: =?utf-8?B?bXguZXhhbXBsZTsgc3BmPXBhc3Mgc210cC5tYWlsZnJvbT1taWNyb3MwZnQuZXhhbXBsZQ==?=\r\n\r\nhi";
    assert_eq!(
        rendered(raw.as_bytes()),
        "From: Microsoft <security@micros0ft.example>\n\
         Reply-To: Account team <x@y.example>\n\
         Subject: \"Microsoft\" notice\n\
         Authentication-Results: mx.example; spf=pass smtp.mailfrom=micros0ft.example\n\nhi"
    );
}

#[test]
fn invisible_characters_are_shown_as_markers() {
    let raw = "From: \"=?utf-8?Q?Pay=E2=80=8BPal?=\" <service@pay-pal.example>\r\n\
               Subject: =?utf-8?Q?Account=E2=80=8C=E2=80=8C_locked?=\r\n\
               Content-Type: text/html; charset=utf-8\r\n\r\n\
               <p>Sign in to Pay\u{200d}Pal\u{e0041} now \u{1F469}\u{200D}\u{1F4BB}</p>";
    assert_eq!(
        rendered(raw.as_bytes()),
        "From: Pay[U+200B]Pal <service@pay-pal.example>\n\
         Subject: Account[U+200C×2] locked\n\n\
         Sign in to Pay[U+200D]Pal[U+E0041] now \u{1F469}\u{200D}\u{1F4BB}"
    );
    // A plain body: a leading byte-order mark is encoding, later ones are shown.
    let raw =
        "From: a@b.test\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\u{feff}Hello\u{feff}";
    assert_eq!(rendered(raw.as_bytes()), "From: a@b.test\n\nHello[U+FEFF]");
}
