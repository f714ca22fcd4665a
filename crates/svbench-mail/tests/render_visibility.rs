//! Which text of an HTML body a reader sees, decided from inline styles as a
//! browser decides it: one table of layouts mail templates use (MJML and
//! calendar-invite columns, preheaders, hidden tracking text), each with the
//! text that must be rendered and whether hidden text was recorded.

use svbench_mail::{html_to_text, EmailLimits};

/// (html, visible text, some text was hidden)
const CASES: &[(&str, &str, bool)] = &[
    // MJML / calendar-invite columns: a zero font size removes the gaps
    // between inline blocks; each column sets its own size again.
    (
        r#"<div style="font-size:0"><div style="font-size:16px">real text</div></div>"#,
        "real text",
        false,
    ),
    (
        r#"<div style="font-size:0px;text-align:center"><!--[if mso]><table><tr><td><![endif]-->
           <div class="mj-column" style="font-size:0;display:inline-block">
           <table><tr><td style="font-size:13px;line-height:1">Your invoice is ready</td></tr></table>
           </div></div>"#,
        "Your invoice is ready",
        false,
    ),
    // Whitespace between the columns is what the zero size hides.
    (
        r#"<div style="font-size:0"> <div style="font-size:14px">one</div> <div style="font-size:14px">two</div> </div>"#,
        "one\ntwo",
        false,
    ),
    // Text directly under a zero size is hidden; its siblings that reset
    // the size are not.
    (
        r#"<div style="font-size:0">hidden words<span style="font-size:12pt">shown</span></div>"#,
        "shown",
        true,
    ),
    // A size relative to a zero parent stays zero; rem is the root's.
    (
        r#"<div style="font-size:0"><span style="font-size:1.5em">x1</span><span style="font-size:120%">x2</span><span style="font-size:1rem">root</span></div>"#,
        "root",
        true,
    ),
    ("<p style='font: 0/0 a'>gone</p><p>kept</p>", "kept", true),
    // display:none however written; children cannot undo it.
    (
        r#"<p>a</p><div style="DISPLAY : NONE !important"><p style="display:block">b</p></div>"#,
        "a",
        true,
    ),
    (
        r#"<p>a</p><div style="display:none!important;">b</div>"#,
        "a",
        true,
    ),
    (
        r#"<span style="display:none">x</span><span style="display:inline">y</span>"#,
        "y",
        true,
    ),
    // The usual preheader: hidden by several properties at once.
    (
        r#"<div style="display:none;font-size:1px;color:#fefefe;line-height:1px;max-height:0px;max-width:0px;opacity:0;overflow:hidden;mso-hide:all">Preview: your parcel is waiting&zwnj;&nbsp;&zwnj;&nbsp;</div><p>Hello Dana,</p>"#,
        "Hello Dana,",
        true,
    ),
    // Preheaders hidden without display:none.
    (
        r#"<div style="max-height:0;overflow:hidden">preview text</div><p>Body</p>"#,
        "Body",
        true,
    ),
    (
        r#"<div style="height: 0px; overflow: hidden">preview text</div><p>Body</p>"#,
        "Body",
        true,
    ),
    (
        r#"<span style="opacity:0">preview text</span><p>Body</p>"#,
        "Body",
        true,
    ),
    // A zero height alone does not hide what overflows it.
    (
        r#"<div style="max-height:0">overflowing</div>"#,
        "overflowing",
        false,
    ),
    // visibility is inherited, and can be undone by a descendant.
    (
        r#"<div style="visibility:hidden">a<span style="visibility:visible">b</span>c</div>"#,
        "b",
        true,
    ),
    (
        r#"<div style="visibility: hidden"><img alt="logo"><p>t</p></div><p>shown</p>"#,
        "shown",
        true,
    ),
    // Images stay visible under a zero font size (MJML image columns).
    (
        r#"<div style="font-size:0"><a href="https://shop.example/"><img alt="Shop"></a></div>"#,
        "[image: Shop] [link: https://shop.example/]",
        false,
    ),
    // Text colour equal to the background, stated inline, in any spelling.
    (
        r#"<div style="background-color:#ffffff"><span style="color:#fff">white on white</span> black</div>"#,
        "black",
        true,
    ),
    (
        r#"<div style="background:WHITE"><p style="color:rgb(255, 255, 255)">hidden</p><p>seen</p></div>"#,
        "seen",
        true,
    ),
    (
        r##"<table bgcolor="#000000"><tr><td><font color="black">hidden</font> <font color="#fff">seen</font></td></tr></table>"##,
        "seen",
        true,
    ),
    // The colour is inherited; a child colour that differs shows again.
    (
        r#"<div style="background:#1a73e8;color:#1a73e8">a<span style="color:#ffffff">Confirm</span></div>"#,
        "Confirm",
        true,
    ),
    // A background image makes the background unknown: nothing is hidden.
    (
        r#"<div style="background-color:#fff"><div style="background:url(hero.png) #fff;"><p style="color:#ffffff">Over the image</p></div></div>"#,
        "Over the image",
        false,
    ),
    // Only a stated colour counts: white text with no stated background.
    (
        r#"<p style="color:#ffffff">button text</p>"#,
        "button text",
        false,
    ),
    // The hidden attribute, unless a style shows the element again.
    (r#"<p hidden>a</p><p>b</p>"#, "b", true),
    (r#"<p hidden style="display:block">a</p>"#, "a", false),
    // A link whose every word is hidden is not shown.
    (
        r#"<p>Hi<a href="https://t.example/x" style="font-size:0">track</a></p>"#,
        "Hi",
        true,
    ),
    // Heights do not apply to inline elements, and table parts grow to
    // their content: neither is collapsed by a zero height.
    (
        r#"<span style="max-height:0;overflow:hidden">inline</span>"#,
        "inline",
        false,
    ),
    (
        r#"<table style="height:0;overflow:hidden"><tr><td style="height:0;overflow:hidden">cell</td></tr></table>"#,
        "cell",
        false,
    ),
    (
        r#"<span style="display:block;max-height:0;overflow:hidden">preview</span>Body"#,
        "Body",
        true,
    ),
    // A link whose only words sit in a hidden element is not shown either.
    (
        r#"<p>Hi <a href="https://t.example/o"><span style="display:none">open</span></a></p>"#,
        "Hi",
        true,
    ),
    // A numeric weight in the font shorthand is not a size.
    (
        r#"<div style="font-size:0"><span style="font:700 14px Arial">Sale</span></div>"#,
        "Sale",
        false,
    ),
    // Transparent text; a descendant with a colour shows again.
    (
        r#"<div style="color:transparent">x<span style="color:#000">y</span></div>"#,
        "y",
        true,
    ),
    // Transparent text.
    (
        r#"<p style="color:transparent">clear</p><p>ok</p>"#,
        "ok",
        true,
    ),
    // Ordinary styles change nothing.
    (
        r#"<p style="font-size:12px;color:#333;background:#fff">plain</p>"#,
        "plain",
        false,
    ),
];

#[test]
fn visibility_follows_inline_styles() {
    let limits = EmailLimits::default();
    let mut failures = Vec::new();
    for (i, (html, visible, hidden)) in CASES.iter().enumerate() {
        let t = html_to_text(html, &limits);
        if t.text != *visible || t.hidden_text != *hidden {
            failures.push(format!(
                "row {i}: {html}\n  want {visible:?} hidden={hidden}\n  got  {:?} hidden={}",
                t.text, t.hidden_text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
