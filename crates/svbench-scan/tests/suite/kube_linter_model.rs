//! The pieces of the Kubernetes object model: quantities, label selectors,
//! group/version/kind.

use std::collections::BTreeMap;

use svbench_scan::k8s::gvk::Gvk;
use svbench_scan::k8s::quantity::Quantity;
use svbench_scan::k8s::selector::{LabelSelector, LabelSelectorRequirement, Selector};

fn q(text: &str) -> Quantity {
    Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn quantities_round_away_from_zero_like_value_and_milli_value() {
    assert_eq!(q("128Mi").scaled_value(0), 128 * 1024 * 1024);
    assert_eq!(q("1G").scaled_value(0), 1_000_000_000);
    assert_eq!(q("500m").scaled_value(-3), 500);
    assert_eq!(q("0.5").scaled_value(-3), 500);
    assert_eq!(q("1").scaled_value(-3), 1000);
    assert_eq!(q("1m").scaled_value(0), 1, "rounded up");
    assert_eq!(q("0.1m").scaled_value(-3), 1, "rounded up");
    assert_eq!(q("-1m").scaled_value(0), -1, "rounded away from zero");
    assert_eq!(q("-0.1m").scaled_value(-3), -1);
    assert_eq!(q("-1e-999999").scaled_value(0), -1);
    assert_eq!(q("-2").scaled_value(-3), -2000);
    assert_eq!(q("1e3").scaled_value(0), 1000);
    assert_eq!(q("1E").scaled_value(0), 1_000_000_000_000_000_000);
    assert_eq!(q("2.5Ki").scaled_value(0), 2560);
    assert_eq!(q("16Ei").scaled_value(0), i64::MAX, "saturates");
    assert_eq!(q("1e-999999").scaled_value(0), 1);
}

#[test]
fn quantity_zero_forms() {
    for zero in ["0", "0Mi", "000", "0.0", ".", "-", "+0", "m", "-0"] {
        let parsed = q(zero);
        assert!(parsed.is_zero(), "{zero}");
        assert!(!parsed.is_negative(), "{zero}");
    }
}

#[test]
fn bad_quantities_are_rejected() {
    for bad in [
        "",
        "abc",
        "1.2.3",
        "12 apples",
        "1Mb",
        "1e",
        "1Ki5",
        "Mi1",
        "1.5x",
        "--1",
        "1 ",
    ] {
        assert!(Quantity::parse(bad).is_err(), "{bad:?} should not parse");
    }
}

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: key.to_owned(),
        operator: op.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
        ..Default::default()
    }
}

#[test]
fn selectors_match_like_kubernetes() {
    let pod = labels(&[("app", "web"), ("tier", "front")]);
    let sel = |ml: &[(&str, &str)], me: Vec<LabelSelectorRequirement>| {
        LabelSelector {
            match_labels: labels(ml),
            match_expressions: me,
            ..Default::default()
        }
        .to_selector()
        .expect("valid")
    };
    assert!(sel(&[], vec![]).matches(&pod), "empty selects everything");
    assert!(!Selector::Nothing.matches(&pod));
    assert!(sel(&[("app", "web")], vec![]).matches(&pod));
    assert!(!sel(&[("app", "db")], vec![]).matches(&pod));
    assert!(sel(&[], vec![expr("tier", "In", &["front", "back"])]).matches(&pod));
    assert!(!sel(&[], vec![expr("tier", "NotIn", &["front"])]).matches(&pod));
    assert!(
        sel(&[], vec![expr("zone", "NotIn", &["a"])]).matches(&pod),
        "absent key passes NotIn"
    );
    assert!(sel(&[], vec![expr("app", "Exists", &[])]).matches(&pod));
    assert!(!sel(&[], vec![expr("app", "DoesNotExist", &[])]).matches(&pod));
}

#[test]
fn invalid_selectors_are_errors() {
    let bad = |ml: &[(&str, &str)], me: Vec<LabelSelectorRequirement>| {
        LabelSelector {
            match_labels: labels(ml),
            match_expressions: me,
            ..Default::default()
        }
        .to_selector()
        .is_err()
    };
    assert!(bad(&[("app", "has space")], vec![]));
    assert!(bad(&[("-app", "x")], vec![]));
    assert!(
        bad(&[("Example.com/app", "x")], vec![]),
        "prefix must be lowercase DNS"
    );
    assert!(bad(&[("a/b/c", "x")], vec![]));
    assert!(
        bad(&[], vec![expr("app", "in", &["x"])]),
        "operators are case-sensitive"
    );
    assert!(bad(&[], vec![expr("app", "In", &[])]));
    assert!(bad(&[], vec![expr("app", "Exists", &["x"])]));
    assert!(
        !bad(&[("example.com/app", "")], vec![]),
        "empty values are valid"
    );
    assert!(!bad(&[("app.kubernetes.io/name", "my_app-1.0")], vec![]));
}

#[test]
fn gvk_parsing_and_registration() {
    let g = Gvk::parse("apps/v1", "Deployment").expect("parses");
    assert_eq!((g.group.as_str(), g.version.as_str()), ("apps", "v1"));
    assert!(g.is_decodable());
    assert!(Gvk::parse("v1", "Pod").is_some_and(|g| g.group.is_empty() && g.is_decodable()));
    assert!(Gvk::parse("a/b/c", "Pod").is_none());
    assert!(Gvk::parse("/v1", "Pod").is_none());
    assert!(!Gvk::parse("v1", "Deployment").is_some_and(|g| g.is_decodable()));
    assert!(!Gvk::parse("apps/v2", "Deployment").is_some_and(|g| g.is_decodable()));
    assert!(Gvk::parse("apps/v1", "DeploymentList").is_some_and(|g| g.is_decodable()));
    assert!(
        !Gvk::parse("v1", "pod").is_some_and(|g| g.is_decodable()),
        "kinds are case-sensitive"
    );
}
