//! Single-shot builtin policies: a builtin that answers each sample once,
//! with a text derived from the example alone (an oracle from the
//! reference, a heuristic from the question), implements [`SingleShot`] and
//! is a [`Policy`] through it — name, report label and the answer as one
//! assistant message are written here once.

use svbench_core::record::SampleError;
use svbench_core::{Completion, Example, Message};

use crate::policy::{Policy, ORACLE_LABEL};

/// A builtin that answers each sample once, whatever its rollout index or
/// the conversation so far.
pub trait SingleShot: Send + Sync {
    /// Its name, as `builtin:<name>` takes it.
    const NAME: &'static str;
    /// An oracle: reports label it [`ORACLE_LABEL`] (an upper bound, never
    /// a baseline) rather than by its name.
    const ORACLE: bool;

    /// The answer text for `example`.
    ///
    /// # Errors
    /// A [`SampleError`] when the example does not hold what the answer
    /// is derived from (a malformed reference, say).
    fn answer_text(&self, example: &Example) -> Result<String, SampleError>;
}

impl<T: SingleShot> Policy for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn label(&self) -> &str {
        if T::ORACLE {
            ORACLE_LABEL
        } else {
            T::NAME
        }
    }

    fn respond(
        &self,
        example: &Example,
        _: usize,
        _: &[Message],
    ) -> Result<Completion, SampleError> {
        self.answer_text(example).map(Completion::assistant_text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    impl SingleShot for Echo {
        const NAME: &'static str = "echo";
        const ORACLE: bool = false;
        fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
            Ok(example.question.clone())
        }
    }

    struct Reference;

    impl SingleShot for Reference {
        const NAME: &'static str = "oracle";
        const ORACLE: bool = true;
        fn answer_text(&self, example: &Example) -> Result<String, SampleError> {
            Ok(example.answer.to_string())
        }
    }

    #[test]
    fn a_single_shot_builtin_answers_once_and_oracles_say_so() {
        let example = Example {
            index: 0,
            id: "x".into(),
            split: None,
            question: "what?".into(),
            answer: serde_json::json!("gold"),
            info: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        };
        assert_eq!((Echo.name(), Echo.label()), ("echo", "echo"));
        assert_eq!(
            (Reference.name(), Reference.label()),
            ("oracle", ORACLE_LABEL)
        );
        assert!(!Echo.interactive() && !Reference.interactive());
        let answer = Echo.respond(&example, 3, &[]).unwrap();
        assert_eq!(answer, Completion::assistant_text("what?"));
        let answer = Reference.respond(&example, 0, &[]).unwrap();
        assert_eq!(answer, Completion::assistant_text("\"gold\""));
    }
}
