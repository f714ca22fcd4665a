//! Mailboxes made by multiplying one unit (messages, `From ` lines, long
//! lines), read by `MboxReader` one message at a time under small limits.
//!
//! Input: as `html_attrs` (a count `N` ≤ 100,000, a prefix, NUL, a unit);
//! the mailbox is the prefix and `N` copies of the unit. Invariants beyond
//! "no panic": no message kept is larger than `max_message_bytes`; the
//! reader yields at most `max_mbox_messages` messages and then one error;
//! what it hands out in total is no more than the input. 60 MB of bare
//! `From ` lines once cost 3.8 GB.

use svbench_mail::{EmailLimits, MboxError, MboxItem, MboxReader};

/// One input.
pub fn run(data: &[u8]) {
    let Some(mbox) = crate::html_attrs::build(data) else {
        return;
    };
    let limits = EmailLimits {
        max_message_bytes: 4_096,
        max_mbox_messages: 1_000,
        ..EmailLimits::default()
    };
    let (mut messages, mut handed_out, mut errors) = (0usize, 0usize, 0usize);
    for item in MboxReader::new(mbox.as_bytes(), &limits) {
        match item {
            Ok(MboxItem::Message(m)) => {
                assert!(
                    m.len() <= limits.max_message_bytes,
                    "{} bytes kept",
                    m.len()
                );
                messages += 1;
                handed_out += m.len();
            }
            Ok(MboxItem::TooLarge { size, limit }) => {
                assert!(size > limit as u64 && size <= mbox.len() as u64);
                messages += 1;
            }
            Err(MboxError::TooManyMessages { limit }) => {
                assert_eq!(limit, limits.max_mbox_messages);
                errors += 1;
            }
            Err(MboxError::Io(e)) => panic!("reading a slice failed: {e}"),
        }
        assert!(errors <= 1 && messages <= limits.max_mbox_messages);
    }
    assert!(
        handed_out <= mbox.len(),
        "{handed_out} bytes out of {}",
        mbox.len()
    );
}
