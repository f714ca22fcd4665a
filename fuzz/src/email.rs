//! E4's email path on raw bytes: MIME parsing (one message, and the same
//! bytes as a mailbox), rendering and the indicator extractor.
//!
//! Invariants: no panic; every finding's span is a code-point slice of the
//! rendering equal to its text, 4–200 characters; the work finishes within
//! `-timeout` whatever the nesting or size.

use svbench_mail::{
    extract, parse_message, render, EmailLimits, IndicatorSet, MboxItem, MboxReader,
};

/// One input: the raw message.
pub fn run(data: &[u8]) {
    let limits = EmailLimits::default();
    if let Ok(email) = parse_message(data, &limits) {
        let rendered = render(&email, &limits);
        let chars: Vec<char> = rendered.text.chars().collect();
        for f in extract(&email, &rendered, IndicatorSet::builtin()) {
            assert!(
                f.start < f.end && f.end <= chars.len(),
                "{f:?} outside the rendering"
            );
            let slice: String = chars[f.start..f.end].iter().collect();
            assert_eq!(slice, f.text, "span text differs from the rendering");
            let n = f.end - f.start;
            assert!((4..=200).contains(&n), "{f:?}: {n} characters");
        }
    }
    // The same bytes as a mailbox, split as imports and `scan` split one.
    for item in MboxReader::new(data, &limits).take(8) {
        if let Ok(MboxItem::Message(raw)) = item {
            if let Ok(email) = parse_message(&raw, &limits) {
                let _ = render(&email, &limits);
            }
        }
    }
}
