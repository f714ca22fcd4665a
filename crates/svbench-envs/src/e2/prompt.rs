//! The E2 system prompt (spec E2 §2.3) and the messages of an episode (§2.1).
//!
//! The prompt is built per item because it names the item's labelled
//! namespaces and, unless `show_catalog=false`, lists their enabled rule ids.
//! It never holds oracle data (labels of the item) or host paths: the only
//! path it mentions is the virtual workspace name.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use svbench_core::Message;

use super::tools::function_name;
use super::{Lang, Severity, Tool};

/// Enabled rules per namespace: (rule id, catalogue severity).
pub type RuleListing = [(Tool, Vec<(String, Severity)>)];

/// What the system prompt of one item is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptContext<'a> {
    /// The item's language (fixes the workspace name).
    pub lang: Lang,
    /// The analyzers whose findings are scored for this item.
    pub labelled: &'a BTreeSet<Tool>,
    /// Whether tools are offered (`include_tools`).
    pub include_tools: bool,
    /// Tool calls per episode, all tools together.
    pub tool_budget: u32,
    /// Assistant messages per episode.
    pub max_turns: u32,
    /// Enabled rules per labelled namespace (id, catalogue severity), when
    /// the catalogue is shown (`show_catalog`); `None` hides it.
    pub catalogue: Option<&'a RuleListing>,
}

/// The system prompt of one item.
#[must_use]
pub fn system_prompt(ctx: &PromptContext<'_>) -> String {
    let file = ctx.lang.workspace_name();
    let namespaces = ctx
        .labelled
        .iter()
        .map(|t| format!("`{}`", t.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = String::new();
    s.push_str(
        "You audit one infrastructure configuration (a Kubernetes manifest or a Terraform \
         module) for security and reliability misconfigurations, and may optionally propose a \
         patch that fixes them.\n\n",
    );

    s.push_str("## Tools\n");
    if ctx.include_tools {
        let tools = ctx
            .labelled
            .iter()
            .map(|t| format!("`{}` ({})", function_name(*t), t.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(
            s,
            "You may call the analyzers `run_kubelinter`, `run_semgrep` and `run_opa`; the ones \
             whose findings are scored for this item are {tools}. Each takes \
             `{{\"paths\": [\"{file}\"]}}`: the only file you can analyse is the workspace file \
             named in the user message (`{file}`, also reachable as `./{file}` or \
             `/workspace/{file}`); any other path is rejected. You have a budget of {budget} \
             tool call(s) in total for this item (failed calls count too) and at most {turns} \
             assistant message(s). A message that contains tool calls is not an answer: your \
             final message must contain no tool calls. If your last allowed message still calls \
             tools, the episode ends with no answer.\n\n",
            budget = ctx.tool_budget,
            turns = ctx.max_turns,
        );
    } else {
        let _ = write!(
            s,
            "No tools are available for this item: audit the configuration by reading it. \
             Answer in a single message without tool calls.\n\n"
        );
    }

    s.push_str("## What is scored\n");
    let _ = write!(
        s,
        "Report every finding as an id of the form `namespace/rule` (for example \
         `kube-linter/<check-name>`, `semgrep/<rule-id>`, `opa/<rule-id>`). Only findings of \
         this item's labelled namespaces are scored: {namespaces}. Ids of other namespaces are \
         ignored; ids that are not findings of the configuration count against you, and so do \
         repeated guesses. A configuration may be clean: an empty `violations` list is the \
         correct answer for a clean configuration.\n\n"
    );

    if let Some(catalogue) = ctx.catalogue {
        s.push_str("## Rule ids of the labelled namespaces\n");
        for (tool, rules) in catalogue {
            if !ctx.labelled.contains(tool) {
                continue;
            }
            let _ = writeln!(s, "{}:", tool.as_str());
            for (rule, severity) in rules {
                let _ = writeln!(s, "- {}/{rule} ({})", tool.as_str(), severity.as_str());
            }
        }
        s.push('\n');
    }

    s.push_str(
        "## Answer format\n\
         Your final message is exactly one JSON object and no other text (a single ```json \
         fenced block around it is accepted):\n\
         {\"violations\": [{\"id\": \"<namespace>/<rule>\", \"severity\": \"low\" | \"med\" | \"high\"}, ...], \
         \"patch\": \"<unified diff or JSON Patch, or empty string>\", \"confidence\": <number in [0, 1]>}\n\
         - `violations`: one object per distinct finding; `id` a non-empty string, `severity` \
         exactly `low`, `med` or `high`.\n\
         - `patch`: optional; an empty string (or null) when you do not propose a fix.\n\
         - `confidence`: a JSON number between 0 and 1.\n\
         An example of the shape only (not of what this item contains):\n\
         {\"violations\": [{\"id\": \"<namespace>/<rule>\", \"severity\": \"med\"}], \"patch\": \"\", \
         \"confidence\": 0.7}\n\n",
    );

    let _ = write!(
        s,
        "## Patches\n\
         A patch is applied to `{file}` and verified: it must apply exactly, keep the file \
         parseable and keep every object, container and image (pinning an untagged or `latest` \
         image to a tag or digest is allowed); suppression annotations or comments are rejected. \
         Two formats are accepted:\n\
         1. A unified diff against `{file}` (`--- a/{file}` / `+++ b/{file}` headers optional; \
         hunks `@@ -l,s +l,s @@` whose context and removed lines match the file exactly).\n\
         2. A JSON Patch (RFC 6902) as a JSON array of operations (`add`, `remove`, `replace`, \
         `move`, `copy`, `test`) on the YAML documents of a Kubernetes manifest (not for \
         Terraform). In a file with several YAML documents every `path` starts with the \
         document index, e.g. `/1/spec/template/spec/containers/0/image` for the second \
         document; in a single-document file paths address the document directly.\n"
    );
    s
}

/// The user message: the workspace path, the labelled namespaces and the
/// config in a fenced block.
#[must_use]
pub fn user_message(lang: Lang, labelled: &BTreeSet<Tool>, config: &str) -> String {
    let fence_lang = match lang {
        Lang::K8s => "yaml",
        Lang::Tf => "hcl",
    };
    let namespaces = labelled
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    // A fence longer than any backtick run in the config keeps it intact.
    let longest = config.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = config.strip_suffix('\n').unwrap_or(config);
    format!(
        "File path: {file}\nLabelled namespaces: {namespaces}\n\n{fence}{fence_lang}\n{body}\n{fence}",
        file = lang.workspace_name(),
    )
}

/// System + user messages of one item.
#[must_use]
pub fn initial_messages(system: String, user: String) -> Vec<Message> {
    vec![Message::system(system), Message::user(user)]
}
