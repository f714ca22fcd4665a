//! What `svbench.train` needs to train a small student on an environment,
//! declared by the environment beside its entry: the SFT teachers (each one
//! answers with one of the environment's builtin policies) and the
//! arguments the student always runs with. The Python trainer reads this
//! table through `svbench._native.TRAINING` and names no environment.

/// An SFT teacher: a builtin policy whose answers a student imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeacherInfo {
    /// The name a training config gives (`sft.teacher`, `grpo.teacher`).
    pub name: &'static str,
    /// The builtin policy (without `builtin:`) that answers for it.
    pub policy: &'static str,
    /// A weak teacher: the answer keeps only a seeded share of its
    /// findings (`sft.teacher_share`, at least one), so the student starts
    /// with recall to gain. Needs [`TrainingDefaults::findings`].
    pub partial: bool,
    /// One line on what the student learns from it.
    pub summary: &'static str,
}

/// An environment's training defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrainingDefaults {
    /// SFT teachers, the default first; empty when the environment cannot
    /// be trained on.
    pub teachers: &'static [TeacherInfo],
    /// Arguments (`K`, JSON value) the student always runs with and a
    /// training config cannot change: a student answers in one message.
    pub student_args: &'static [(&'static str, &'static str)],
    /// The key of the answer's JSON list of findings, when answers list
    /// findings: partial teachers thin it, and `grpo.rows = with_findings`
    /// keeps the rows whose reference lists at least one.
    pub findings: Option<&'static str>,
    /// The Python module (under `svbench.train`) whose analysis of the
    /// environment's answers training reports and study pages show beside
    /// the reward (does the policy read the input, or give one answer to
    /// everything?); `None`: the answer spread every environment gets.
    pub analysis: Option<&'static str>,
}

impl TrainingDefaults {
    /// An environment `svbench.train` does not train on.
    pub const NONE: Self = Self {
        teachers: &[],
        student_args: &[],
        findings: None,
        analysis: None,
    };
}

#[cfg(test)]
mod tests {
    use crate::registry::REGISTRY;

    #[test]
    fn every_teacher_is_a_builtin_and_every_student_argument_is_the_environments() {
        for entry in REGISTRY {
            let training = &entry.training;
            assert!(
                !training.teachers.is_empty(),
                "{} has no teacher",
                entry.name()
            );
            for t in training.teachers {
                assert!(
                    entry.check_builtin(t.policy).is_ok() && !t.policy.contains(':'),
                    "{} teacher {} answers with {}, not a builtin of it",
                    entry.name(),
                    t.name,
                    t.policy
                );
                assert!(
                    !t.partial || training.findings.is_some(),
                    "{} teacher {} is partial, but answers list no findings",
                    entry.name(),
                    t.name
                );
            }
            if let Some(module) = training.analysis {
                assert!(
                    module.starts_with("svbench.train.") && !module.contains(['/', ' ']),
                    "{}: analysis {module} is not a module of svbench.train",
                    entry.name()
                );
            }
            for (key, value) in training.student_args {
                assert!(entry.arg_names.contains(key), "{}: {key}", entry.name());
                assert!(serde_json::from_str::<serde_json::Value>(value).is_ok());
            }
        }
    }
}
