//! Indicator wording: the clauses a template inserts when an indicator is
//! drawn. Each pool varies the phrasing so no single string decides a row;
//! unmarked template text avoids these trigger words.

/// `credential_request` clauses.
pub const CREDENTIAL: &[&str] = &[
    "confirm your password",
    "verify your login details",
    "enter your password and the one-time code",
    "re-enter your credentials",
    "confirm your login credentials",
    "verify your password",
];

/// `urgency_threat` clauses for access and accounts.
pub const URGENCY_ACCOUNT: &[&str] = &[
    "within 24 hours or your account will be suspended",
    "within 48 hours or access will be permanently closed",
    "immediately to avoid suspension of your account",
    "today or your account will be locked",
    "before the end of today or the account will be closed",
];

/// `urgency_threat` clauses for money and deliveries.
pub const URGENCY_PAYMENT: &[&str] = &[
    "within 24 hours or the parcel will be returned to sender",
    "immediately to avoid a late penalty",
    "today or legal action will follow",
    "by tomorrow or the balance goes to collections",
];

/// `urgency_threat` clauses for mailboxes.
pub const URGENCY_MAILBOX: &[&str] = &[
    "within 24 hours or incoming mail will be deleted",
    "immediately or your mailbox will be deactivated",
    "today or new messages will be rejected",
];

/// `payment_request` clauses for changed bank details.
pub const PAYMENT_CHANGE: &[&str] = &[
    "our bank details have changed",
    "please send the wire transfer to our new account",
    "use the updated bank details below for this payment",
    "our banking details changed this month",
];

/// `payment_request` clauses for small fees.
pub const PAYMENT_FEE: &[&str] = &[
    "update your payment information",
    "pay the outstanding customs fee",
    "update payment information to release the parcel",
];

/// `payment_request` clauses for gift cards.
pub const PAYMENT_GIFT: &[&str] = &[
    "buy six gift cards",
    "purchase gift cards for the client visit",
    "pick up gift cards from the nearest store",
    "get gift cards and send me the codes",
];

/// `pii_request` clauses.
pub const PII: &[&str] = &[
    "confirm your Social Security number and date of birth",
    "provide your bank account and routing number",
    "enter your full card number and CVV",
    "reply with your date of birth and mother's maiden name",
    "send a scan of your passport",
];

/// `generic_greeting` openers.
pub const GENERIC_GREETING: &[&str] = &[
    "Dear customer,",
    "Dear valued customer,",
    "Dear user,",
    "Dear member,",
];

/// Soft urgency a real fraud alert or reset uses (an expiry window).
pub const EXPIRY: &[&str] = &[
    "This link expires within 1 hour",
    "For your security the link expires within 30 minutes",
    "The reset link expires within 2 hours",
];

/// Soft alarm wording of real fraud and deadline notices.
pub const REAL_ALARM: &[&str] = &[
    "We noticed unusual activity",
    "We detected unusual activity",
    "This is a final notice",
];
