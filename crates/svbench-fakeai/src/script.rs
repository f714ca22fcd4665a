//! Which step answers which request: rules with step queues, then a fallback.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use crate::step::Step;

/// A computed answer for requests no rule matched.
pub(crate) type Fallback = Arc<dyn Fn(&Value) -> Step + Send + Sync>;

/// The fake server's behaviour: rules tried in order, then a fallback.
///
/// ```
/// use svbench_fakeai::{Rule, Script, Step};
/// let script = Script::new()
///     .rule(Rule::any().when_user_contains("port 22").then(Step::rate_limited("7")).then(Step::content("ok")))
///     .fallback(|_body| Step::content(r#"{"label":"Benign","confidence":0.9}"#));
/// # drop(script);
/// ```
///
/// A request no rule and no fallback answers gets a 400 whose error message
/// starts with `svbench-fakeai: no scripted step`, and is counted by
/// `FakeServer::unmatched_count`.
pub struct Script {
    pub(crate) rules: Vec<Rule>,
    pub(crate) fallback: Option<Fallback>,
    pub(crate) record_requests: bool,
    pub(crate) response_model: Option<String>,
}

impl Default for Script {
    fn default() -> Self {
        Script::new()
    }
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script")
            .field("rules", &self.rules)
            .field(
                "fallback",
                &self.fallback.as_ref().map(|_| "Fn(&Value) -> Step"),
            )
            .field("record_requests", &self.record_requests)
            .field("response_model", &self.response_model)
            .finish()
    }
}

impl Script {
    /// An empty script: no rules, no fallback, requests recorded.
    pub fn new() -> Self {
        Script {
            rules: Vec::new(),
            fallback: None,
            record_requests: true,
            response_model: None,
        }
    }

    /// A script that answers every request with `step`.
    pub fn always(step: Step) -> Self {
        Script::new().rule(Rule::any().then(step))
    }

    /// A script that answers requests with `steps` in arrival order, repeating
    /// the last one once they are used up.
    pub fn sequence<I: IntoIterator<Item = Step>>(steps: I) -> Self {
        Script::new().rule(Rule::any().steps(steps))
    }

    /// A script whose every answer is computed from the request body.
    pub fn from_fn<F>(answer: F) -> Self
    where
        F: Fn(&Value) -> Step + Send + Sync + 'static,
    {
        Script::new().fallback(answer)
    }

    /// Adds a rule; rules are tried in the order they were added.
    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Sets the answer for requests that no rule matched.
    pub fn fallback<F>(mut self, answer: F) -> Self
    where
        F: Fn(&Value) -> Step + Send + Sync + 'static,
    {
        self.fallback = Some(Arc::new(answer));
        self
    }

    /// Whether to keep each request's headers and body for
    /// `FakeServer::requests` (default true). Counts and peak concurrency are
    /// always kept; turn recording off for benchmarks.
    pub fn record_requests(mut self, record: bool) -> Self {
        self.record_requests = record;
        self
    }

    /// The `model` reported in responses; by default the request's `model` is echoed.
    pub fn response_model(mut self, model: impl Into<String>) -> Self {
        self.response_model = Some(model.into());
        self
    }

    /// The step for this request body, or `None` if nothing answers it.
    pub(crate) fn choose(&self, body: &Value) -> Option<Step> {
        self.rules
            .iter()
            .find_map(|rule| rule.take(body))
            .or_else(|| self.fallback.as_ref().map(|f| f(body)))
    }
}

/// What a rule does once its queue of steps is used up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WhenExhausted {
    /// Keep answering with the last step (the default).
    #[default]
    RepeatLast,
    /// Stop matching, so later rules or the fallback answer.
    FallThrough,
}

/// A condition on the request plus a queue of steps consumed in order.
///
/// All conditions set must hold; a rule with none matches every request.
#[derive(Debug)]
pub struct Rule {
    model: Option<String>,
    last_user_contains: Option<String>,
    any_message_contains: Option<String>,
    last_role: Option<String>,
    steps: Vec<Step>,
    when_exhausted: WhenExhausted,
    served: AtomicUsize,
}

impl Rule {
    /// A rule matching every request (narrow it with the `when_*` methods).
    pub fn any() -> Self {
        Rule {
            model: None,
            last_user_contains: None,
            any_message_contains: None,
            last_role: None,
            steps: Vec::new(),
            when_exhausted: WhenExhausted::RepeatLast,
            served: AtomicUsize::new(0),
        }
    }

    /// A rule matching requests whose `model` equals `model`.
    pub fn model(model: impl Into<String>) -> Self {
        Rule::any().when_model(model)
    }

    /// Also require the request's `model` to equal `model`.
    pub fn when_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Also require the last `user` message's text to contain `needle`.
    pub fn when_user_contains(mut self, needle: impl Into<String>) -> Self {
        self.last_user_contains = Some(needle.into());
        self
    }

    /// Also require some message's text (any role) to contain `needle`.
    pub fn when_any_message_contains(mut self, needle: impl Into<String>) -> Self {
        self.any_message_contains = Some(needle.into());
        self
    }

    /// Also require the last message to have this role (e.g. `"tool"` for a
    /// turn that follows tool results).
    pub fn when_last_role(mut self, role: impl Into<String>) -> Self {
        self.last_role = Some(role.into());
        self
    }

    /// Appends a step to the queue.
    pub fn then(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Appends several steps to the queue.
    pub fn steps<I: IntoIterator<Item = Step>>(mut self, steps: I) -> Self {
        self.steps.extend(steps);
        self
    }

    /// Sets what happens once the queue is used up.
    pub fn when_exhausted(mut self, what: WhenExhausted) -> Self {
        self.when_exhausted = what;
        self
    }

    /// Shorthand for `when_exhausted(WhenExhausted::FallThrough)`: each step
    /// is served once.
    pub fn once_each(self) -> Self {
        self.when_exhausted(WhenExhausted::FallThrough)
    }

    /// Whether the request satisfies every condition of this rule.
    pub fn matches(&self, body: &Value) -> bool {
        if let Some(model) = &self.model {
            if body.get("model").and_then(Value::as_str) != Some(model.as_str()) {
                return false;
            }
        }
        if let Some(needle) = &self.last_user_contains {
            match last_user_text(body) {
                Some(text) if text.contains(needle.as_str()) => {}
                _ => return false,
            }
        }
        if let Some(needle) = &self.any_message_contains {
            let found = messages(body)
                .iter()
                .any(|m| message_text(m).is_some_and(|t| t.contains(needle.as_str())));
            if !found {
                return false;
            }
        }
        if let Some(role) = &self.last_role {
            let last = messages(body)
                .last()
                .and_then(|m| m.get("role"))
                .and_then(Value::as_str);
            if last != Some(role.as_str()) {
                return false;
            }
        }
        true
    }

    /// The model this rule is restricted to, if any.
    pub(crate) fn model_name(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The next step if the rule matches and has one to give.
    fn take(&self, body: &Value) -> Option<Step> {
        if self.steps.is_empty() || !self.matches(body) {
            return None;
        }
        let n = self.served.fetch_add(1, Ordering::Relaxed);
        match self.steps.get(n) {
            Some(step) => Some(step.clone()),
            None => match self.when_exhausted {
                WhenExhausted::RepeatLast => self.steps.last().cloned(),
                WhenExhausted::FallThrough => None,
            },
        }
    }
}

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The text of a message's `content`: the string itself, or the `text` parts
/// of a content-part array joined with no separator. `None` when absent/null.
pub fn message_text(message: &Value) -> Option<Cow<'_, str>> {
    match message.get("content")? {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Array(parts) => {
            let mut text = String::new();
            for part in parts {
                if let Some(t) = part.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                }
            }
            Some(Cow::Owned(text))
        }
        _ => None,
    }
}

/// The text of the last `user` message of a Chat Completions request body.
pub fn last_user_text(body: &Value) -> Option<Cow<'_, str>> {
    messages(body)
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(message_text)
}
