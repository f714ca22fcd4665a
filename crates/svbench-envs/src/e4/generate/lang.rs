//! Hand-written phrase tables for the families written in more than one
//! language. Each table holds the same slots in every language; `{name}`,
//! `{vendor}`, `{amount}` and `{ref}` are filled by the template. Wording
//! that asks for money is kept apart from wording that does not, so a
//! template marks exactly the clauses that are indicators.

/// Languages of the multilingual families (`meta.language`).
pub const LANGUAGES: &[&str] = &["en", "pt", "es", "fr", "de"];

/// The business-email-compromise family's wording.
#[derive(Debug)]
pub struct Bec {
    /// `Hi {name},`.
    pub hello: &'static [&'static str],
    /// Subjects either side may use (no urgency words).
    pub subjects: &'static [&'static str],
    /// Subjects of an ask about the vendor.
    pub vendor_subjects: &'static [&'static str],
    /// Openers either side may use.
    pub openers: &'static [&'static str],
    /// The phishing ask that moves money (marked `payment_request`).
    pub phish_money: &'static [&'static str],
    /// The phishing ask that moves nothing yet (a reply, a number, discretion).
    pub phish_other: &'static [&'static str],
    /// The legitimate ask about money (marked as soft payment wording).
    pub legit_money: &'static [&'static str],
    /// The legitimate ask about anything else.
    pub legit_other: &'static [&'static str],
    /// A closing line either side may use.
    pub closers: &'static [&'static str],
    /// `Thanks,`.
    pub thanks: &'static [&'static str],
}

const BEC_EN: Bec = Bec {
    hello: &["Hi {name},", "Hello {name},", "{name},"],
    subjects: &[
        "Quick favour",
        "A small task",
        "Confidential",
        "Are you in the office?",
        "Quick question",
    ],
    vendor_subjects: &["{vendor}", "Question about {vendor}", "Supplier details"],
    openers: &[
        "Hope your week is going well.",
        "I'm between meetings most of the day.",
        "Thanks for your help on the audit last month.",
        "I have something I'd like you to handle for me.",
    ],
    phish_money: &[
        "please process a payment of {amount} to {vendor} from the operating account",
        "{vendor} has new bank details, please change them in the payment system before the next run",
        "could you switch the remittance account for {vendor} to the one I'll send over once you confirm",
        "I need you to make a transfer of {amount} for a confidential acquisition, I'll send the beneficiary details",
        "please set up a new payee for {vendor} with the account details I'll send you",
        "I changed banks, please move my salary to the new account before this month's payroll",
    ],
    phish_other: &[
        "send me your mobile number, I'll text you the details",
        "reply here when you're free, it's a confidential matter and I'd rather not discuss it by phone",
        "please keep this between us until I've told the board",
    ],
    legit_money: &[
        "{vendor} sent new remittance details through the supplier portal, please check them with their account manager by phone before we change anything",
        "please process the approved {vendor} invoice in the normal payment run",
        "the purchase order for {vendor} ({amount}) is approved in the finance system, please release it in the normal payment run",
        "I've updated my direct deposit in the HR portal, could you check it's in place for this month?",
    ],
    legit_other: &[
        "could you book the large meeting room for the {vendor} visit on Thursday?",
        "please send me the latest headcount figures, it's for the board pack and still confidential",
        "could you pick up the visitor badges for tomorrow's client visit?",
        "can you add {vendor} to the agenda for Monday's operations review?",
    ],
    closers: &[
        "Let me know if anything is unclear.",
        "Thanks for sorting this.",
        "Appreciate it.",
        "Speak later.",
    ],
    thanks: &["Thanks,", "Best,", "Regards,", "Cheers,"],
};

/// The business-email-compromise wording in `lang` (English when the
/// language has no table).
pub fn bec(lang: &str) -> &'static Bec {
    match lang {
        _ => &BEC_EN,
    }
}

/// The vendor-invoice family's wording.
#[derive(Debug)]
pub struct Invoice {
    /// Subjects (`{ref}` is the invoice number).
    pub subjects: &'static [&'static str],
    /// `Hello {name},`.
    pub hello: &'static [&'static str],
    /// The invoice itself (`{ref}`, `{amount}`, `{vendor}`; the goods follow).
    pub intro: &'static [&'static str],
    /// The phishing change of payment details (marked `payment_request`).
    pub phish_money: &'static [&'static str],
    /// The legitimate payment line (marked as soft payment wording).
    pub legit_money: &'static [&'static str],
    /// A legitimate line that names no payment channel.
    pub legit_plain: &'static [&'static str],
    /// The portal link's lead-in.
    pub portal: &'static [&'static str],
    /// A polite closing line.
    pub closers: &'static [&'static str],
    /// `Kind regards,`.
    pub regards: &'static [&'static str],
    /// The signature's department (`Accounts Receivable`).
    pub department: &'static str,
}

const INVOICE_EN: Invoice = Invoice {
    subjects: &[
        "Invoice {ref}",
        "{vendor} invoice {ref}",
        "Invoice {ref} attached",
        "Your invoice from {vendor}",
    ],
    hello: &["Hello {name},", "Dear {name},", "Hi {name},"],
    intro: &[
        "Please find attached invoice {ref} for {amount} for the",
        "Attached is our invoice {ref} ({amount}) covering the",
        "Thank you for your order. Invoice {ref} for {amount} is attached for the",
    ],
    phish_money: &[
        "please note our bank details have changed, and the new account is shown on the attached invoice",
        "we now bank with a different institution, so please use the account on this invoice for this and future payments",
        "kindly make payment to the remittance account printed on the invoice, which replaces the one in your records",
        "our finance team has moved to a new account; the details are on page two of the invoice",
    ],
    legit_money: &[
        "payment by bank transfer to the account on the invoice, as usual",
        "please pay the balance by wire transfer within your normal terms",
    ],
    legit_plain: &[
        "payment terms are 30 days as agreed in the framework contract",
        "the amount matches the purchase order your team approved",
    ],
    portal: &["You can also view it in our customer portal: "],
    closers: &[
        "Please let us know if you have any questions.",
        "Thank you for your business.",
        "We appreciate your continued custom.",
    ],
    regards: &["Kind regards,", "Best regards,", "Regards,"],
    department: "Accounts Receivable",
};

/// The vendor-invoice wording in `lang` (English when it has no table).
pub fn invoice(lang: &str) -> &'static Invoice {
    match lang {
        _ => &INVOICE_EN,
    }
}

/// `template` with `{name}`, `{vendor}`, `{amount}` and `{ref}` filled.
pub fn fill(template: &str, name: &str, vendor: &str, amount: &str, reference: &str) -> String {
    template
        .replace("{name}", name)
        .replace("{vendor}", vendor)
        .replace("{amount}", amount)
        .replace("{ref}", reference)
}
