//! Grounding (E4 §4, §10 item 5): one test per invalid-item reason,
//! normalisation, quote stripping, occurrence choice, offsets, and
//! properties on arbitrary input.

use proptest::prelude::*;

use super::*;
use crate::e4::normalize::{normalize_item, NormalizedText};

fn text(s: &str) -> RawEvidence {
    RawEvidence::Text(s.to_string())
}

fn span(q: &str, nth: usize, needle: &str, polarity: Polarity) -> GoldSpan {
    let (byte, _) = q.match_indices(needle).nth(nth).expect("needle");
    let start = q[..byte].chars().count();
    GoldSpan {
        start,
        end: start + needle.chars().count(),
        text: needle.to_string(),
        category: "c".to_string(),
        polarity,
    }
}

fn run(q: &str, items: &[RawEvidence], spans: &[GoldSpan]) -> Grounding {
    let gold = GoldFacts {
        label: Label::Phishing,
        spans,
        source: GoldSource::Annotated,
    };
    ground(
        q,
        items,
        gold,
        &GroundingRules::v1(EvidenceLimits::default()),
    )
    .unwrap()
}

fn statuses(g: &Grounding) -> Vec<ItemStatus> {
    g.items.iter().map(|i| i.status).collect()
}

fn slice(q: &str, (a, b): (usize, usize)) -> String {
    q.chars().skip(a).take(b - a).collect()
}

const Q: &str =
    "From: alerts@evil-bank.top\nPlease confirm your password now.\nVisit evil-bank.top today.";

#[test]
fn one_test_per_invalid_reason() {
    let s = [span(Q, 0, "confirm your password", Polarity::Phish)];
    let long = "x".repeat(201);
    let mut items = vec![
        RawEvidence::NotString,
        text("abc"),
        text(&long),
        text("confirm the wire"),
        text("onfirm your"),
        text("confirm your password"),
        text("confirm your password"),
        text("Please"),
        text("today."),
        text("From:"),
    ];
    items.push(text("Visit"));
    let g = run(Q, &items, &s);
    use ItemStatus::*;
    assert_eq!(
        statuses(&g),
        vec![
            NotString,
            TooShort,
            TooLong,
            NotFound,
            NotWordBounded,
            Valid,
            Duplicate,
            Valid,
            Valid,
            Valid,
            TooMany
        ]
    );
    assert_eq!(ItemStatus::NotWordBounded.as_str(), "not_word_bounded");
    // Exactly the limits pass.
    let g = run(Q, &[text("From"), text(&"From:".repeat(40))], &s);
    assert_eq!(g.items[0].status, Valid);
    assert_eq!(g.items[1].status, NotFound); // 200 chars: long enough to search
}

#[test]
fn whitespace_and_nfc_normalisation() {
    // A quote spanning a line break and a run of spaces.
    let g = run(Q, &[text("password  now. Visit")], &[]);
    assert_eq!(g.items[0].status, ItemStatus::Valid);
    let (a, b) = g.items[0].span.unwrap();
    assert_eq!(slice(Q, (a, b)), "password now.\nVisit");
    // A decomposed question, a precomposed quote (and the other way round).
    let q = "Caf\u{65}\u{301} Royal\tcharges  you";
    let g = run(q, &[text("Caf\u{e9} Royal"), text("Royal charges")], &[]);
    assert_eq!(statuses(&g), vec![ItemStatus::Valid; 2]);
    assert_eq!(slice(q, g.items[0].span.unwrap()), "Cafe\u{301} Royal");
    let q = "Caf\u{e9} Royal";
    let g = run(q, &[text("Cafe\u{301} Royal")], &[]);
    assert_eq!(g.items[0].status, ItemStatus::Valid);
}

#[test]
fn surrounding_quotes_are_stripped() {
    for quoted in [
        "\"confirm your password\"",
        "'confirm your password'",
        "`confirm your password`",
        "“confirm your password”",
        "  \"confirm your password \" ",
    ] {
        let g = run(Q, &[text(quoted)], &[]);
        assert_eq!(g.items[0].status, ItemStatus::Valid, "{quoted}");
        assert_eq!(g.items[0].text.as_deref(), Some("confirm your password"));
    }
    // Only one layer, only matching pairs.
    let g = run(
        Q,
        &[
            text("\"'confirm your password'\""),
            text("\"confirm your password'"),
        ],
        &[],
    );
    assert_eq!(statuses(&g), vec![ItemStatus::NotFound; 2]);
}

#[test]
fn occurrence_choice_prefers_open_relevant_spans() {
    // The domain occurs twice; only the second is a gold span.
    let second = span(Q, 1, "evil-bank.top", Polarity::Phish);
    let g = run(Q, &[text("evil-bank.top")], std::slice::from_ref(&second));
    assert_eq!(g.items[0].span, Some((second.start, second.end)));
    assert_eq!(g.items[0].matched_gold, vec![0]);
    // Two gold spans: quoting twice cites both occurrences, no duplicate.
    let first = span(Q, 0, "evil-bank.top", Polarity::Phish);
    let g = run(
        Q,
        &[text("evil-bank.top"), text("evil-bank.top")],
        &[first.clone(), second.clone()],
    );
    assert_eq!(statuses(&g), vec![ItemStatus::Valid; 2]);
    assert_eq!(g.items[0].span, Some((first.start, first.end)));
    assert_eq!(g.items[1].span, Some((second.start, second.end)));
    assert_eq!(g.recall, Some(1.0));
    // A third time: both spans are taken, the earliest best overlap is
    // chosen again, which repeats an interval.
    let g = run(
        Q,
        &[
            text("evil-bank.top"),
            text("evil-bank.top"),
            text("evil-bank.top"),
        ],
        &[first.clone(), second],
    );
    assert_eq!(g.items[2].status, ItemStatus::Duplicate);
    // No gold span overlaps: the earliest occurrence.
    let g = run(Q, &[text("evil-bank.top")], &[]);
    assert_eq!(g.items[0].span, Some((first.start, first.end)));
}

#[test]
fn relevant_set_follows_the_gold_label() {
    let phish = span(Q, 0, "confirm your password", Polarity::Phish);
    let benign = span(Q, 0, "alerts@evil-bank.top", Polarity::Benign);
    let spans = [phish, benign];
    let items = [text("confirm your password")];
    let at = |label| {
        let gold = GoldFacts {
            label,
            spans: &spans,
            source: GoldSource::Annotated,
        };
        ground(
            Q,
            &items,
            gold,
            &GroundingRules::v1(EvidenceLimits::default()),
        )
        .unwrap()
    };
    assert_eq!(at(Label::Phishing).f1, Some(2.0 * 1.0 * 1.0 / 2.0));
    assert_eq!(at(Label::Legitimate).f1, Some(0.0));
    assert_eq!(
        at(Label::Legitimate).items[0].matched_gold,
        Vec::<usize>::new()
    );
    let ab = at(Label::Abstain);
    assert_eq!(ab.relevant, 2);
    assert!((ab.f1.unwrap() - 2.0 * 0.5 / 1.5).abs() < 1e-12);
}

fn run_rule(q: &str, items: &[RawEvidence], spans: &[GoldSpan], rule: MatchRule) -> Grounding {
    let gold = GoldFacts {
        label: Label::Phishing,
        spans,
        source: GoldSource::Annotated,
    };
    let rules = GroundingRules {
        rule,
        ..GroundingRules::v1(EvidenceLimits::default())
    };
    ground(q, items, gold, &rules).unwrap()
}

#[test]
fn match_rule_needs_half_the_quote_and_enough_of_the_span() {
    let q = "Pay the invoice via wire transfer to account 12345678 today";
    let g_span = span(q, 0, "wire transfer to account 12345678", Polarity::Phish);
    let s = std::slice::from_ref(&g_span);
    let matched = |quote: &str, rule| {
        run_rule(q, &[text(quote)], s, rule).items[0]
            .matched_gold
            .clone()
    };
    for rule in [MatchRule::Overlap, MatchRule::ContentWords] {
        // Inside the span but fewer than min(|g|, 8) = 8 characters.
        assert!(matched("wire", rule).is_empty());
        // Mostly outside the span: no match.
        assert!(matched("Pay the invoice via wire transfer", rule).is_empty());
        // Most of the span's words: matches.
        assert_eq!(matched("transfer to account", rule), vec![0]);
        assert_eq!(matched("wire transfer to account 12345678", rule), vec![0]);
    }
    // Eight characters inside: enough for the overlap rule, not for v1,
    // which wants half of the span's five words.
    assert_eq!(matched("transfer", MatchRule::Overlap), vec![0]);
    assert!(matched("transfer", MatchRule::ContentWords).is_empty());
    // A short span counts once wholly covered.
    let short = span(q, 0, "today", Polarity::Phish);
    assert_eq!(
        run(q, &[text("today")], &[short]).items[0].matched_gold,
        vec![0]
    );
}

/// The fragment exploit: the shortest word-bounded fragment of at least
/// eight characters of each span (`https://`, `.example`) matched it under
/// the overlap rule; under v1 it must carry the span's words.
#[test]
fn eight_characters_of_scaffolding_do_not_match_under_v1() {
    let q = "From: IT <it@quillon-legal.test>\nReset within 48 hours at \
             https://sso.quillon-legal.test/password/change or northwindbank.example now.";
    let spans = [
        span(
            q,
            0,
            "https://sso.quillon-legal.test/password/change",
            Polarity::Phish,
        ),
        span(q, 0, "northwindbank.example", Polarity::Phish),
        span(q, 0, "within 48 hours", Polarity::Phish),
    ];
    let fragments = [text("https://"), text(".example"), text("within 48")];
    let old = run_rule(q, &fragments, &spans, MatchRule::Overlap);
    assert_eq!(old.f1, Some(1.0), "the exploit the rule closes");
    let v1 = run_rule(q, &fragments, &spans, MatchRule::ContentWords);
    assert_eq!(
        v1.items
            .iter()
            .map(|i| i.matched_gold.len())
            .collect::<Vec<_>>(),
        [0, 0, 1],
        "scaffolding matches nothing; two of three words of a phrase do"
    );
    assert!(v1.f1.unwrap() < 0.34, "{:?}", v1.f1);
    // Honest quotes, whole or by their words, keep the maximum.
    let honest = [
        text("sso.quillon-legal.test/password/change"),
        text("northwindbank"),
        text("within 48 hours"),
    ];
    assert_eq!(
        run_rule(q, &honest, &spans, MatchRule::ContentWords).f1,
        Some(1.0)
    );
    let whole: Vec<RawEvidence> = spans.iter().map(|s| text(&s.text)).collect();
    assert_eq!(
        run_rule(q, &whole, &spans, MatchRule::ContentWords).f1,
        Some(1.0)
    );
}

/// The old choice, every occurrence against every span.
fn choose_by_pairs(
    occurrences: &[(usize, usize)],
    relevant: &[(usize, usize, usize)],
    recalled: &[bool],
) -> (usize, usize) {
    let earliest = occurrences.first().copied().unwrap_or_default();
    let best = |open_only: bool| {
        let mut best = (0usize, earliest);
        for &occ in occurrences {
            let o = relevant
                .iter()
                .zip(recalled)
                .filter(|(_, done)| !(open_only && **done))
                .map(|(&(gs, ge, _), _)| overlap(occ, (gs, ge)))
                .max()
                .unwrap_or(0);
            if o > best.0 {
                best = (o, occ);
            }
        }
        best
    };
    let (o, occ) = best(true);
    if o > 0 {
        occ
    } else {
        best(false).1
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_sweep_chooses_as_every_pair_would(
        n in 1usize..60,
        len in 1usize..12,
        starts in proptest::collection::btree_set(0usize..60, 0..12),
        raw in proptest::collection::vec((0usize..64, 0usize..64, any::<bool>()), 0..8),
    ) {
        let occurrences: Vec<(usize, usize)> = starts
            .into_iter()
            .filter(|&s| s + len <= n)
            .map(|s| (s, s + len))
            .collect();
        let relevant: Vec<(usize, usize, usize)> = raw
            .iter()
            .enumerate()
            .map(|(i, &(a, b, _))| (a.min(b).min(n), a.max(b).min(n), i))
            .collect();
        let recalled: Vec<bool> = raw.iter().map(|r| r.2).collect();
        let expected = choose_by_pairs(&occurrences, &relevant, &recalled);
        let swept = choose_with(&occurrences, &relevant, &recalled, n, &Deadline::NONE, 0).unwrap();
        prop_assert_eq!(swept, expected);
        let got = choose(&occurrences, &relevant, &recalled, n, &Deadline::NONE).unwrap();
        prop_assert_eq!(got, expected);
    }
}

/// 1 MB of question, 10,000 spans and ten quotes found 100,000 times each:
/// comparing every occurrence with every span was 10¹⁰ steps per quote.
fn big_row() -> (String, Vec<GoldSpan>, Vec<RawEvidence>) {
    let q = "pay now ".repeat(125_000);
    let spans: Vec<GoldSpan> = (0..10_000)
        .map(|i| {
            let start = i * 96;
            GoldSpan {
                start,
                end: start + 7,
                text: "pay now".into(),
                category: format!("c{i}"),
                polarity: Polarity::Phish,
            }
        })
        .collect();
    let items: Vec<RawEvidence> = (0..10)
        .map(|i| text(["pay now", "now pay", "pay now pay"][i % 3]))
        .collect();
    (q, spans, items)
}

#[test]
fn a_long_question_with_many_spans_grounds_in_bounded_work() {
    let (q, spans, items) = big_row();
    let g = run(&q, &items, &spans);
    // "pay now" and "pay now pay" cover a not-yet-matched span wholly;
    // "now pay" overlaps one by three characters, less than half of it.
    assert_eq!(g.items[0].status, ItemStatus::Valid);
    assert_eq!(g.items[0].matched_gold, vec![0]);
    assert_eq!(g.items[1].matched_gold, Vec::<usize>::new());
    assert_eq!(g.items[2].matched_gold, vec![1]);
    assert_eq!(g.items[3].matched_gold, vec![2]);
    assert_eq!(g.recalled, 7);
    assert_eq!(g.recalled_categories.len(), g.recalled);
}

#[test]
fn a_passed_deadline_stops_grounding() {
    let (q, spans, items) = big_row();
    let gold = GoldFacts {
        label: Label::Phishing,
        spans: &spans,
        source: GoldSource::Annotated,
    };
    let passed = Deadline::at(
        std::time::Instant::now(),
        std::time::Duration::from_millis(5),
    );
    let rules = GroundingRules {
        deadline: passed,
        ..GroundingRules::v1(EvidenceLimits::default())
    };
    let err = ground(&q, &items, gold, &rules).unwrap_err();
    assert_eq!(err.budget, std::time::Duration::from_millis(5));
}

#[test]
fn offsets_map_back_to_question_code_points() {
    let q = "Ünïcödé  header:\n\n  Sehr   geehrte Kundin, bestätigen Sie Ihr Passwort.";
    let g = run(
        q,
        &[text("geehrte Kundin, bestätigen"), text("Ihr Passwort.")],
        &[],
    );
    for item in &g.items {
        let (a, b) = item.span.unwrap();
        let got = slice(q, (a, b));
        let norm = NormalizedText::new(&got);
        assert_eq!(norm.as_str(), item.text.as_deref().unwrap());
    }
    assert_eq!(slice(q, g.items[1].span.unwrap()), "Ihr Passwort.");
}

#[test]
fn huge_inputs_stay_bounded() {
    let q = "a ".repeat(5_000);
    let items: Vec<RawEvidence> = (0..100_000)
        .map(|i| {
            if i % 2 == 0 {
                text("a a a a")
            } else {
                RawEvidence::NotString
            }
        })
        .collect();
    let g = run(&q, &items, &[]);
    assert_eq!(g.items.len(), 100_000);
    assert_eq!(g.items[10].status, ItemStatus::TooMany);
    assert_eq!(g.f1, Some(0.0));
    let big = text(&"b".repeat(5_000_000));
    let g = run(&q, &[big], &[]);
    assert_eq!(g.items[0].status, ItemStatus::TooLong);
    assert!(g.items[0].text.as_ref().unwrap().chars().count() <= RECORD_TEXT_MAX_CHARS);
    assert!(normalize_item(&"c".repeat(10_000), 200).is_err());
}

#[test]
fn empty_evidence_and_empty_gold() {
    assert_eq!(run(Q, &[], &[]).f1, Some(1.0));
    let s = [span(Q, 0, "confirm your password", Polarity::Phish)];
    let g = run(Q, &[], &s);
    assert_eq!((g.f1, g.precision, g.recall), (Some(0.0), None, Some(0.0)));
}

fn arb_item() -> impl Strategy<Value = RawEvidence> {
    prop_oneof![
        Just(RawEvidence::NotString),
        "\\PC{0,30}".prop_map(RawEvidence::Text),
        "[ab \n\u{301}\u{e9}e\"]{0,12}".prop_map(RawEvidence::Text),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn grounding_never_panics_and_valid_items_quote_the_question(
        q in "[ab \n\t\u{301}\u{e9}e\u{1100}\u{1161}.,\"]{0,80}|\\PC{0,60}",
        items in proptest::collection::vec(arb_item(), 0..14),
        raw_spans in proptest::collection::vec((0usize..100, 0usize..100, any::<bool>()), 0..4),
        label in prop_oneof![Just(Label::Phishing), Just(Label::Legitimate), Just(Label::Abstain)],
    ) {
        let n = q.chars().count();
        let spans: Vec<GoldSpan> = raw_spans
            .iter()
            .map(|&(a, b, phish)| GoldSpan {
                start: a,
                end: b,
                text: String::new(),
                category: "c".into(),
                polarity: if phish { Polarity::Phish } else { Polarity::Benign },
            })
            .collect();
        let gold = GoldFacts { label, spans: &spans, source: GoldSource::Annotated };
        let limits = EvidenceLimits { max_items: 10, min_chars: 1, max_chars: 20 };
        let g = ground(&q, &items, gold, &GroundingRules::v1(limits)).unwrap();
        prop_assert_eq!(g.items.len(), items.len());
        if let Some(f1) = g.f1 {
            prop_assert!((0.0..=1.0).contains(&f1));
        }
        for item in &g.items {
            if let Some((a, b)) = item.span {
                prop_assert!(a < b && b <= n, "{a}..{b} of {n}");
                let quoted = NormalizedText::new(&slice(&q, (a, b)));
                let text = item.text.as_deref().unwrap_or_default();
                prop_assert!(quoted.as_str().contains(text), "{:?} !⊇ {:?}", quoted.as_str(), text);
                prop_assert!(item.matched_gold.iter().all(|&k| k < spans.len()));
            } else {
                prop_assert!(item.status != ItemStatus::Valid);
            }
        }
    }

    #[test]
    fn arbitrary_quotes_in_long_questions(q in "\\PC{0,2000}", item in "\\PC{0,300}") {
        let g = run(&q, &[RawEvidence::Text(item)], &[]);
        prop_assert_eq!(g.items.len(), 1);
    }
}
