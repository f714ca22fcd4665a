//! Document split as kube-linter's reader does it.

use svbench_scan::{split_documents, YamlError};

fn docs(text: &str) -> Vec<(usize, usize, &str)> {
    split_documents(text)
        .map(|d| {
            let d = d.expect("no separator error");
            (d.doc_index, d.first_line, d.text)
        })
        .collect()
}

#[test]
fn single_document_without_separator() {
    assert_eq!(docs("a: 1\nb: 2\n"), vec![(0, 1, "a: 1\nb: 2\n")]);
}

#[test]
fn separators_with_spaces_and_comments_end_documents() {
    let text = "a: 1\n---\nb: 2\n---   \nc: 3\n--- # comment\nd: 4\n---\t#x\ne: 5";
    assert_eq!(
        docs(text),
        vec![
            (0, 1, "a: 1\n"),
            (1, 3, "b: 2\n"),
            (2, 5, "c: 3\n"),
            (3, 7, "d: 4\n"),
            (4, 9, "e: 5"),
        ]
    );
}

#[test]
fn leading_separator_and_trailing_separator_add_no_documents() {
    assert_eq!(docs("---\na: 1\n---\n"), vec![(0, 2, "a: 1\n")]);
}

#[test]
fn blank_and_comment_only_documents_take_no_index() {
    let text = "# header\n\n---\na: 1\n---\n   \n# only a comment\n---\nb: 2\n";
    assert_eq!(docs(text), vec![(0, 4, "a: 1\n"), (1, 9, "b: 2\n")]);
}

#[test]
fn comment_lines_do_not_count_but_stay_in_the_text() {
    assert_eq!(docs("# c\na: 1\n"), vec![(0, 1, "# c\na: 1\n")]);
}

#[test]
fn text_after_separator_is_an_error_for_the_rest_of_the_file() {
    let text = "a: 1\n--- !tag\nb: 2\n---\nc: 3\n";
    let out: Vec<_> = split_documents(text).collect();
    assert_eq!(out.len(), 2);
    let first = out[0].as_ref().expect("first document");
    assert_eq!(
        (first.doc_index, first.first_line, first.text),
        (0, 1, "a: 1\n")
    );
    assert_eq!(
        out[1],
        Err(YamlError::Separator {
            line: 2,
            text: "!tag".to_owned()
        })
    );
}

#[test]
fn four_dashes_and_inline_content_are_errors() {
    for text in ["----\na: 1\n", "---a\n", "--- a: 1\n", "--- {}\n"] {
        let out: Vec<_> = split_documents(text).collect();
        assert!(
            matches!(out.last(), Some(Err(YamlError::Separator { line: 1, .. }))),
            "{text:?}: {out:?}"
        );
        assert_eq!(out.len(), 1, "{text:?}");
    }
}

#[test]
fn indented_dashes_and_document_end_markers_are_not_separators() {
    assert_eq!(
        docs("a: |\n  ---\n  x\n"),
        vec![(0, 1, "a: |\n  ---\n  x\n")]
    );
    assert_eq!(docs("a: 1\n...\n"), vec![(0, 1, "a: 1\n...\n")]);
}

#[test]
fn crlf_line_endings() {
    assert_eq!(
        docs("a: 1\r\n---\r\nb: 2\r\n"),
        vec![(0, 1, "a: 1\r\n"), (1, 3, "b: 2\r\n")]
    );
}

#[test]
fn empty_input_has_no_documents() {
    assert!(split_documents("").next().is_none());
    assert!(split_documents("\n\n# x\n---\n").next().is_none());
}

#[test]
fn iterator_ends_after_the_separator_error() {
    let mut it = split_documents("a: 1\n---x\nb: 2\n");
    assert!(matches!(it.next(), Some(Ok(_))));
    assert!(matches!(
        it.next(),
        Some(Err(YamlError::Separator { line: 2, .. }))
    ));
    assert!(it.next().is_none());
    assert!(it.next().is_none());
}
