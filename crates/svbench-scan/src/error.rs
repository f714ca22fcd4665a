//! Typed errors of the YAML model.

/// Why a file or one of its documents could not be turned into a [`crate::Node`] tree.
///
/// Every variant carries the 1-based line of the file where the problem was found
/// (see [`YamlError::line`]), so a scan can report `file:line`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum YamlError {
    /// The input is larger than [`crate::Limits::max_input_bytes`].
    #[error("input is {size} bytes, more than the limit of {limit} bytes")]
    InputTooLarge {
        /// Size of the input in bytes.
        size: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The input is not valid UTF-8.
    #[error("line {line}: invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 {
        /// Line holding the first invalid byte.
        line: usize,
        /// Byte offset of the first invalid byte in the input.
        offset: usize,
    },
    /// The input holds a character YAML does not allow (NUL or another control
    /// character): it is most likely a binary file.
    #[error("line {line}: control character U+{code:04X} is not allowed in YAML (binary input?)")]
    ControlCharacter {
        /// Line holding the character.
        line: usize,
        /// The character's code point.
        code: u32,
    },
    /// A `---` line followed by text other than a comment; the rest of the file
    /// is not read (kube-linter's reader stops there).
    #[error("line {line}: invalid YAML document separator: {text}")]
    Separator {
        /// Line of the separator.
        line: usize,
        /// The text that follows `---`, trimmed.
        text: String,
    },
    /// The YAML parser rejected the document.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// Line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// Collections nest deeper than [`crate::Limits::max_depth`] (including
    /// depth added by alias expansion).
    #[error("line {line}: nesting deeper than {limit} levels")]
    TooDeep {
        /// Line where the limit was crossed.
        line: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The document expands to more than [`crate::Limits::max_nodes`] nodes,
    /// typically through aliases (a "YAML bomb").
    #[error("line {line}: document has more than {limit} nodes once aliases are expanded")]
    TooManyNodes {
        /// Line where the limit was crossed.
        line: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The documents of a file (or everything one request parses) expand to
    /// more nodes in all than their [`crate::NodeBudget`]
    /// ([`crate::Limits::file_nodes`] of the input's size); nothing after
    /// this document is read.
    #[error(
        "line {line}: the documents hold more than {limit} nodes in all once aliases are \
         expanded (the node budget of one file or request); the rest of the input is not read"
    )]
    BudgetExceeded {
        /// Line where the budget ran out.
        line: usize,
        /// The budget in force, in nodes.
        limit: usize,
    },
    /// A `<<` merge key whose value is not a mapping or a sequence of mappings.
    #[error("line {line}: map merge requires a mapping or a sequence of mappings as the value")]
    MergeNotMapping {
        /// Line of the merge value.
        line: usize,
    },
    /// A mapping key that is itself a mapping or a sequence (go-yaml v2 rejects
    /// these when decoding into generic maps).
    #[error("line {line}: invalid mapping key: a key must be a scalar")]
    InvalidKey {
        /// Line of the key.
        line: usize,
    },
    /// A scalar whose explicit tag does not fit its text (e.g. `!!int abc`).
    #[error("line {line}: cannot decode {found} `{text}` as a {tag}")]
    TagMismatch {
        /// Line of the scalar.
        line: usize,
        /// The explicit tag, e.g. `!!int`.
        tag: String,
        /// What the text resolves to, e.g. `!!str`.
        found: String,
        /// The scalar's text.
        text: String,
    },
    /// A `!!binary` scalar that is not valid base64.
    #[error("line {line}: !!binary value contains invalid base64 data")]
    InvalidBinary {
        /// Line of the scalar.
        line: usize,
    },
    /// A value that has no JSON form (a null, sequence or mapping key, or a
    /// NaN/infinite float).
    #[error("line {line}: {what} cannot be converted to JSON")]
    NotJson {
        /// Line of the offending node.
        line: usize,
        /// What could not be converted.
        what: String,
    },
}

impl YamlError {
    /// The 1-based line of the file the error refers to (`None` only for
    /// [`YamlError::InputTooLarge`], which concerns the whole input).
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            YamlError::InputTooLarge { .. } => None,
            YamlError::InvalidUtf8 { line, .. }
            | YamlError::ControlCharacter { line, .. }
            | YamlError::Separator { line, .. }
            | YamlError::Syntax { line, .. }
            | YamlError::TooDeep { line, .. }
            | YamlError::TooManyNodes { line, .. }
            | YamlError::BudgetExceeded { line, .. }
            | YamlError::MergeNotMapping { line }
            | YamlError::InvalidKey { line }
            | YamlError::TagMismatch { line, .. }
            | YamlError::InvalidBinary { line }
            | YamlError::NotJson { line, .. } => Some(*line),
        }
    }
}
