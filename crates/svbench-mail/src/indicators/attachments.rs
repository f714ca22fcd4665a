//! `risky_attachment`: an executable or script-like extension, a document
//! extension hiding another (`statement.pdf.exe`), or an archive whose
//! password the body gives (scanners cannot look inside).

use std::ops::Range;

use super::doc::Doc;
use super::spans::Collector;
use super::IndicatorSet;
use crate::parse::Email;

pub(super) fn check(doc: &Doc<'_>, email: &Email, set: &IndicatorSet, out: &mut Collector<'_>) {
    if email.attachments.is_empty() {
        return;
    }
    let protected = set
        .protected_archive
        .find(doc.slice(&doc.body))
        .map(|m| doc.body.start + m.start()..doc.body.start + m.end());
    let line = doc.header("Attachments");
    // Names are rendered in order; search each after the previous one.
    let mut cursor = line.as_ref().map_or(0, |l| l.start);
    let mut archive_named = false;
    for attachment in &email.attachments {
        let span = line.as_ref().and_then(|l| {
            let found = doc.find_in(&(cursor..l.end), &attachment.name)?;
            cursor = found.end;
            Some(found)
        });
        let name = attachment.name.to_lowercase();
        let extensions: Vec<&str> = name.rsplit('.').take(2).collect();
        let has_ext = name.contains('.');
        let last = extensions.first().copied().filter(|_| has_ext);
        let inner = extensions
            .get(1)
            .copied()
            .filter(|_| name.matches('.').count() >= 2);
        let reason = match (last, inner) {
            (Some(last), Some(inner))
                if set.decoy_extensions.contains(inner)
                    && !set.decoy_extensions.contains(last)
                    && last != inner =>
            {
                Some(format!("double extension .{inner}.{last}"))
            }
            (Some(last), _) if set.risky_extensions.contains(last) => {
                Some(format!("risky extension .{last}"))
            }
            (Some(last), _) if set.archive_extensions.contains(last) && protected.is_some() => {
                archive_named = true;
                Some(format!("password-protected .{last} archive"))
            }
            _ => None,
        };
        if let (Some(reason), Some(span)) = (reason, span) {
            out.push("risky_attachment", span, || {
                format!("{}: {reason}", attachment.name)
            });
        }
    }
    // The password is in the body, but no archive is listed by name: cite
    // the phrase, so the indicator is still evidence.
    if let (false, Some(phrase)) = (archive_named, protected) {
        if email
            .attachments
            .iter()
            .any(|a| is_archive(&a.name, set) || a.mime_type.contains("zip"))
        {
            let range: Range<usize> = phrase;
            out.push("risky_attachment", range, || {
                "the body gives the password of an attached archive".to_string()
            });
        }
    }
}

fn is_archive(name: &str, set: &IndicatorSet) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| set.archive_extensions.contains(&ext.to_lowercase()))
}
