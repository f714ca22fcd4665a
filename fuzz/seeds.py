#!/usr/bin/env python3
"""Writes the committed seed corpora under fuzz/corpus/<target>/.

Seeds come from the project's own datasets (datasets/e1, datasets/e2) and
from small hand-written inputs in the shapes the test suites use; nothing
else is read. Run from anywhere: `python3 fuzz/seeds.py` (it rewrites the
`seed-*` files and leaves other files, such as crash inputs, alone).
"""

import difflib
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def rows(path):
    with open(ROOT / path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


E1_TEST = rows("datasets/e1/test.jsonl")
E1_OOD = rows("datasets/e1/ood.jsonl")
E2_TEST = rows("datasets/e2/test.jsonl")
E2_DEV = rows("datasets/e2/dev.jsonl")
E4_TEST = rows("datasets/e4/test.jsonl")


def lang(row):
    return "tf" if "-tf-" in row["id"] else "k8s"


def pick(rs, want_lang, n, with_violations=None):
    out = []
    for r in rs:
        if lang(r) != want_lang:
            continue
        if with_violations is not None and bool(r["info"]["violations"]) != with_violations:
            continue
        out.append(r)
        if len(out) == n:
            break
    return out


K8S = pick(E2_TEST, "k8s", 6, True) + pick(E2_TEST, "k8s", 2, False) + pick(E2_DEV, "k8s", 4)
TF = pick(E2_TEST, "tf", 6, True) + pick(E2_TEST, "tf", 2, False) + pick(E2_DEV, "tf", 4)


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    (d / f"seed-{name}").write_bytes(data)


def clear_seeds():
    if not CORPUS.exists():
        return
    for d in CORPUS.iterdir():
        for f in d.glob("seed-*"):
            f.unlink()


def unified(original, modified, name):
    return "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            modified.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def edit_k8s(text):
    """A plausible hardening edit of a manifest (a diff with real hunks)."""
    for old, new in [
        ("readOnlyRootFilesystem: false", "readOnlyRootFilesystem: true"),
        ("allowPrivilegeEscalation: true", "allowPrivilegeEscalation: false"),
        ("privileged: true", "privileged: false"),
        ("runAsNonRoot: false", "runAsNonRoot: true"),
        ("hostNetwork: true", "hostNetwork: false"),
        (":latest", ":1.27.0"),
    ]:
        if old in text:
            return text.replace(old, new, 1)
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip().startswith("image:"):
            indent = line[: len(line) - len(line.lstrip())]
            lines.insert(i + 1, f"{indent}imagePullPolicy: Always\n")
            return "".join(lines)
    return text + "# reviewed\n"


def edit_tf(text):
    for old, new in [
        ('acl    = "public-read"', 'acl    = "private"'),
        ('"0.0.0.0/0"', '"10.0.0.0/8"'),
        ("encrypted = false", "encrypted = true"),
        ("publicly_accessible = true", "publicly_accessible = false"),
    ]:
        if old in text:
            return text.replace(old, new, 1)
    return text.replace("{\n", "{\n  # reviewed\n", 1)


def e2_id(v):
    return f"{v['tool']}/{v['rule_id']}"


def e2_answer(row, patch=None, confidence=0.8):
    ans = {
        "violations": [{"id": e2_id(v), "severity": v["severity"]} for v in row["info"]["violations"]],
        "patch": patch,
        "confidence": confidence,
    }
    return json.dumps(ans, indent=2)


# ------------------------------------------------------------- extract

EXTRACT = {
    "e1-plain": '{"label": "Malicious", "confidence": 0.92, "rationale": "port scan"}',
    "e1-fenced": '```json\n{"label": "Benign", "confidence": 0.7}\n```',
    "e1-think": '<think>{"label": "Benign"} is tempting</think>\n{"label": "Malicious", "confidence": 1}',
    "e1-prose": 'I looked at the flow. Answer: {"label": "Abstain", "confidence": 0.5} done.',
    "e1-two-objects": '{"label": "Benign", "confidence": 0.2}\n{"label": "Malicious", "confidence": 0.9}',
    "e1-label-only": '{"label": "malicious"}',
    "e1-conf-string": '{"label": "Benign", "confidence": "0.75"}',
    "e1-conf-nan": '{"label": "Benign", "confidence": NaN}',
    "e1-conf-inf": '{"label": "Benign", "confidence": 1e400}',
    "e1-conf-bool": '{"label": "Malicious", "confidence": true}',
    "e1-dup-keys": '{"label": "Benign", "label": "Malicious", "confidence": 0.6}',
    "e1-big-int": '{"label": "Benign", "confidence": ' + "9" * 400 + "}",
    "e1-escapes": '{"label": "Mal\\u0069cious", "confidence": 0.5, "rationale": "\\ud83d\\ude00 \\ud800"}',
    "e1-nested": '{"label": "Benign", "confidence": 0.5, "extra": ' + "[" * 40 + "]" * 40 + "}",
    "e1-unbalanced": '{"label": "Benign", "confidence": 0.5 {"x": "}"}',
    "e1-fence-tilde": "~~~\n{\"label\": \"Benign\", \"confidence\": 0.1}\n~~~",
    "e1-unclosed-think": '<think> {"label": "Malicious", "confidence": 0.9}',
    "e1-python-quirks": "{'label': 'Benign', 'confidence': 0.3}",
    "e1-ws": ' \t\r\n{"label":"Benign","confidence":0}\n\u00a0',
    "e1-empty": "",
    "e2-fenced-diff": "```json\n"
    + json.dumps(
        {
            "violations": [{"id": "kube-linter/latest-tag", "severity": "med"}],
            "patch": "--- a/manifest.yaml\n+++ b/manifest.yaml\n@@ -8 +8 @@\n-    image: nginx:latest\n+    image: nginx:1.27.0\n",
            "confidence": 0.8,
        }
    )
    + "\n```",
    "e2-tool-rule": '{"violations": [{"tool": "opa", "rule_id": "K8S_003", "severity": "HIGH"}], "confidence": 0.4}',
    "e2-bare-strings": '{"violations": ["latest-tag", "run-as-non-root"], "patch": null}',
    "e2-bad-types": '{"violations": {"id": 1}, "patch": ["x"], "confidence": "high"}',
    "e2-empty": '{"violations": [], "patch": "", "confidence": 1.0}',
}
for i, row in enumerate(K8S[:3] + TF[:3]):
    EXTRACT[f"e2-gold-{i}"] = e2_answer(row)


# ------------------------------------------------------------- api bodies

E1_ID = E1_TEST[0].get("id") or E1_TEST[0]["meta"]["hash"]
E2_K8S_ID = K8S[0]["id"]
E2_TF_ID = TF[0]["id"]
API = {
    "score-e1": ("score e1", {"example_id": E1_ID, "completion": '{"label": "Benign", "confidence": 0.9}'}),
    "score-e1-messages": (
        "score sv-env-network-logs",
        {
            "example_id": E1_ID,
            "split": "test",
            "completion": [{"role": "assistant", "content": '{"label": "Malicious", "confidence": 0.6}'}],
            "reward_profile": "upstream",
        },
    ),
    "score-e1-inline": (
        "score e1",
        {"answer": "Malicious", "info": {"p_malicious": 0.9}, "completion": '{"label": "Malicious", "confidence": 0.8}'},
    ),
    "score-e1-bad-answer": ("score e1", {"answer": "maybe", "completion": "x"}),
    "score-e1-reward-config": (
        "score e1",
        {
            "example_id": E1_ID,
            "completion": '{"label": "Benign", "confidence": 0.5}',
            "reward_config": {"v1": {"cost_fp": 0.5}},
        },
    ),
    "score-e2": ("score e2", {"example_id": E2_K8S_ID, "completion": e2_answer(K8S[0])}),
    "score-e2-args": (
        "score e2",
        {
            "example_id": E2_TF_ID,
            "completion": e2_answer(TF[0]),
            "env_args": {"lang": "all", "max_findings_per_result": "5", "oracle": "dataset"},
            "reward_profile": "upstream",
        },
    ),
    "score-e2-inline": (
        "score e2",
        {
            "question": K8S[1]["question"],
            "answer": K8S[1]["info"]["violations"],
            "info": K8S[1]["info"],
            "completion": e2_answer(K8S[1], unified(K8S[1]["question"], edit_k8s(K8S[1]["question"]), "manifest.yaml")),
        },
    ),
    "batch-e1": (
        "batch e1",
        {
            "items": [
                {"example_id": E1_ID, "completion": '{"label": "Benign", "confidence": 0.9}'},
                {"example_id": E1_ID, "completion": '{"label": "Malicious", "confidence": 0.9}'},
            ],
            "advantage": {"mode": "grpo", "group_size": 2},
        },
    ),
    "batch-e2": (
        "batch e2",
        {
            "items": [{"example_id": E2_K8S_ID, "completion": "no idea"}],
            "advantage": {"mode": "gdpo", "group_size": 1, "eps": 1e-6, "ddof": 0},
        },
    ),
    "reset-e2": ("reset e2", {"index": 0, "split": "test", "max_turns": 3, "tool_budget": 2}),
    "reset-e1": ("reset e1", {"example_id": E1_ID}),
    "step-e2-tool": (
        "step e2",
        {
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{}"}}],
            }
        },
    ),
    "step-e2-tool-flat": (
        "step e2",
        {"message": {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "run_opa", "arguments": {"paths": ["manifest.yaml"]}}]}},
    ),
    "step-e2-answer": ("step e2", {"message": {"role": "assistant", "content": e2_answer(K8S[0])}}),
    "step-e1": ("step e1", {"message": {"role": "assistant", "content": '{"label": "Benign", "confidence": 0.9}'}}),
}


# ------------------------------------------------------------- patches

JSON_PATCHES = {
    "replace": [{"op": "replace", "path": "/metadata/name", "value": "renamed"}],
    "add-remove": [
        {"op": "add", "path": "/metadata/labels", "value": {"team": "sre"}},
        {"op": "remove", "path": "/metadata/labels/team"},
    ],
    "test-move": [
        {"op": "test", "path": "/kind", "value": "Pod"},
        {"op": "move", "from": "/metadata/name", "path": "/metadata/generateName"},
    ],
    "copy-small": [
        {"op": "copy", "from": "/metadata", "path": "/metadata/k1"},
        {"op": "copy", "from": "/metadata", "path": "/metadata/k2"},
    ],
    "doc-index": [{"op": "add", "path": "/1/metadata/annotations", "value": {"a": "b"}}],
    "append": [{"op": "add", "path": "/spec/containers/-", "value": {"name": "side", "image": "busybox:1.36"}}],
    "escapes": [{"op": "add", "path": "/metadata/annotations", "value": {"a~1b": "~0"}}, {"op": "remove", "path": "/metadata/annotations/a~01b"}],
}

SMALL_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
)


def main():
    clear_seeds()
    for name, text in EXTRACT.items():
        write("extract", name, text)

    # YAML model: the dataset's manifests and the model's corner cases.
    for r in K8S:
        write("yaml", r["id"], r["question"])
    write("yaml", "small-pod", SMALL_POD)
    write("yaml", "anchors-merge", "base: &b\n  a: 1\n  b: [x, y]\nder:\n  <<: *b\n  c: !!str 3\nlist: [*b, *b]\n")
    write("yaml", "multi-doc", "---\na: 1\n--- # c\nb: yes\n...\n---\n- on\n- 0x1F\n- 012\n- ~\n")
    write("yaml", "list-kind", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n")
    write("yaml", "block-scalars", "a: |\n  line\n   more\nb: >-\n  folded\n  text\nc: 'it''s'\nd: \"\\t\\u00e9\"\n")
    write("yaml", "laughs", "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\n")
    write("yaml", "bom-tags", "\ufeffkind: !custom Pod\nx: !!binary aGVsbG8=\ny: !!timestamp 2001-12-14\n? complex\n: key\n")
    write("yaml", "quantities", "spec:\n  resources:\n    limits: {cpu: 500m, memory: 1Gi}\n    requests: {cpu: \"0.5\", memory: 1e3}\n")

    # HCL.
    for r in TF:
        write("hcl", r["id"], r["question"])
    write(
        "hcl",
        "expressions",
        'variable "x" {\n  default = { a = [1, 2.5, "s"], b = null }\n}\nresource "aws_s3_bucket" "b" {\n'
        '  bucket = "${var.x}-logs"\n  tags   = merge(var.tags, { Name = "n" })\n  count  = 2\n'
        '  dynamic "rule" {\n    for_each = [1]\n    content { id = rule.value }\n  }\n  policy = jsonencode({ Version = "2012-10-17" })\n}\n'
        'data "aws_iam_policy_document" "d" {\n  statement { actions = ["s3:*"] }\n}\n',
    )
    write("hcl", "heredoc", 'resource "null_resource" "n" {\n  triggers = {\n    s = <<-EOT\n      hi ${1 + 2}\n    EOT\n  }\n}\n')

    # Scanner: a type byte, then the file.
    for r in K8S[:8]:
        write("scan", r["id"], "k" + r["question"])
    for r in TF[:8]:
        write("scan", r["id"], "t" + r["question"])

    # Unified diffs: strict and lenient appliers.
    for r in K8S[:6]:
        orig = r["question"]
        write("patch_diff", r["id"], "k" + orig + "\0" + unified(orig, edit_k8s(orig), "manifest.yaml"))
    for r in TF[:6]:
        orig = r["question"]
        write("patch_diff", r["id"], "t" + orig + "\0" + unified(orig, edit_tf(orig), "main.tf"))
    write("patch_diff", "bare-hunk", "k" + SMALL_POD + "\0@@ -8 +8 @@\n-    image: nginx\n+    image: nginx:1.27.0\n")
    write(
        "patch_diff",
        "fenced-two-hunks",
        "k" + SMALL_POD + "\0```diff\n@@ -1,2 +1,2 @@\n apiVersion: v1\n-kind: Pod\n+kind: Pod\n@@ -8 +8,2 @@\n     image: nginx\n+    imagePullPolicy: Always\n```\n",
    )
    write("patch_diff", "no-newline", "k" + SMALL_POD.rstrip("\n") + "\0@@ -8 +8 @@\n-    image: nginx\n\\ No newline at end of file\n+    image: nginx:1.27.0\n\\ No newline at end of file\n")
    write("patch_diff", "lenient-json-ops", "k" + '{"a": {"b": 1}, "c": [1, 2]}' + "\0" + json.dumps([{"op": "add", "path": "/a/x/y", "value": 2}, {"op": "remove", "path": "c/0"}, {"op": "replace", "path": "/d", "value": None}]))
    write("patch_diff", "fuzzy-offset", "k" + "x\n" * 5 + SMALL_POD + "\0@@ -2,3 +2,3 @@\n kind: Pod\n metadata:\n-  name: p\n+  name: q\n")
    write("patch_diff", "dev-null", "k" + SMALL_POD + "\0--- /dev/null\n+++ b/other.yaml\n@@ -0,0 +1 @@\n+a: 1\n")

    # JSON Patches.
    multi = K8S[0]["question"] if "\n---\n" in K8S[0]["question"] else SMALL_POD + "---\n" + SMALL_POD
    for name, ops in JSON_PATCHES.items():
        orig = multi if name == "doc-index" else SMALL_POD
        write("json_patch", name, "k" + orig + "\0" + json.dumps(ops))
    for r in K8S[:4]:
        ops = [{"op": "add", "path": "/0/metadata/annotations" if "\n---\n" in r["question"] else "/metadata/annotations", "value": {"reviewed": "yes"}}]
        write("json_patch", r["id"], "k" + r["question"] + "\0" + json.dumps(ops))
    write("json_patch", "terraform", "t" + TF[0]["question"] + "\0" + json.dumps(JSON_PATCHES["replace"]))
    write("json_patch", "fenced", "k" + SMALL_POD + "\0```json\n" + json.dumps(JSON_PATCHES["replace"]) + "\n```")

    # E2 scoring: header line, then the completion.
    for r in K8S[:5] + TF[:5]:
        orig = r["question"]
        name = "manifest.yaml" if lang(r) == "k8s" else "main.tf"
        edited = edit_k8s(orig) if lang(r) == "k8s" else edit_tf(orig)
        write("e2_score", r["id"] + "-v1", f"v1 {r['id']}\n" + e2_answer(r, unified(orig, edited, name)))
        write("e2_score", r["id"] + "-upstream", f"upstream {r['id']}\n```json\n" + e2_answer(r, None, 0.5) + "\n```")
    r = K8S[0]
    write("e2_score", "json-messages", f"v1 {r['id']} json\n" + json.dumps([{"role": "assistant", "content": e2_answer(r)}]))
    write("e2_score", "json-patch", f"v1 {r['id']}\n" + json.dumps({"violations": [], "patch": json.dumps(JSON_PATCHES["replace"]), "confidence": 0.1}))
    write("e2_score", "prose", f"upstream {r['id']}\nThe manifest looks fine to me.")

    # E4: answers to embedded emails (gold quotes, exploits, upstream quirks).
    for r in E4_TEST[:3] + [x for x in E4_TEST if x["answer"] == "Phishing"][:2]:
        quotes = [sp["text"] for sp in r["meta"]["spans"]][:3]
        answer = json.dumps({"label": r["answer"], "confidence": 0.8, "evidence": quotes})
        write("e4_score", r["id"] + "-v1", f"v1 {r['id']}\n" + answer)
        write("e4_score", r["id"] + "-upstream", f"upstream {r['id']}\n" + answer)
    r = E4_TEST[0]
    write("e4_score", "spray", f"v1 {r['id']}\n" + json.dumps({"label": "Phishing", "confidence": 0.9, "evidence": r["question"].split("\n")[:12]}))
    write("e4_score", "dict-evidence", f"upstream {r['id']}\n" + '{"label":" PHISHING ","confidence":"0.7","evidence":{"urgent":1}}')

    # E4 emails: raw messages in the shapes the parser meets.
    write("email", "plain", "From: Bank <alerts@northwlnd-bank.top>\r\nReply-To: desk@freemail.example\r\nTo: dana@acme-corp.example\r\nSubject: =?utf-8?q?Verify_now?=\r\n\r\nDear customer, confirm your password within 24 hours: http://203.0.113.7/login\r\n")
    write("email", "alternative", "From: Shop <news@shop.test>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nPlain\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>Sale <a href=\"http://bit.ly/x\">paypal.com</a></p><div style=\"display:none\">hidden</div>\r\n--b--\r\n")
    write("email", "attachment", "From: a@b.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n--m\r\nContent-Type: text/plain\r\n\r\nSee the zip, password 1234.\r\n--m\r\nContent-Type: application/octet-stream; name=\"invoice.pdf.exe\"\r\nContent-Transfer-Encoding: base64\r\n\r\nTVqQAAMAAAAEAAAA\r\n--m--\r\n")
    write("email", "mbox", "From a@x Mon Jan  1 00:00:00 2024\nFrom: a@x.test\nSubject: one\n\nbody one\n\nFrom b@y Mon Jan  1 00:00:00 2024\nFrom: b@y.test\n\nbody two\n")

    # Multiplied units (a count line, a prefix, NUL, a unit): attributes per
    # tag, <body> and formatting tags, tags hidden in raw text; mailboxes of
    # separators, messages and long lines.
    write('html_attrs', 'one-tag', '20000\n<p>before</p><p\x00 a')
    write('html_attrs', 'quoted-values', '5000\n<p \x00a="v"')
    write('html_attrs', 'slashes', '5000\n<p\x00/a')
    write('html_attrs', 'bodies', '3000\n\x00<body a b c d e f g h>')
    write('html_attrs', 'bold', '10000\n\x00<b x=1 y>')
    write('html_attrs', 'raw-text', '5000\n<script><a x="</script><p\x00 a')
    write('html_attrs', 'comment', '5000\n<!-- <a x=" --><p\x00 a')
    write('html_attrs', 'closed-links', '2000\n\x00<a href=x>l</a> ')
    write('mbox', 'separators', '100000\n\x00From \n')
    write('mbox', 'messages', '3000\n\x00From a@x Mon Jan  1 00:00:00 2024\nFrom: a@x.test\nSubject: one\n\nbody\n>From quoted\n')
    write('mbox', 'long-line', '100000\nFrom a\n\x00xxxxxxxxxx')
    write('mbox', 'long-separator', '100000\nFrom \x00ffffffffff')

    # Dataset rows: small files cut from the datasets, and malformed variants.
    def jsonl(rs):
        return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rs)

    write("dataset_rows", "e1-test", jsonl(E1_TEST[:4]))
    write("dataset_rows", "e1-ood", jsonl(E1_OOD[:2]))
    write("dataset_rows", "e2-test", jsonl(E2_TEST[:2]))
    write("dataset_rows", "e2-tf", jsonl(TF[:1]))
    write("dataset_rows", "e1-bom", "\ufeff" + jsonl(E1_TEST[:1]))
    e1_row = dict(E1_TEST[0])
    write("dataset_rows", "e1-split-number", json.dumps({**e1_row, "meta": {**e1_row["meta"], "split": 7}}) + "\n")
    write("dataset_rows", "e1-minimal", '{"question": "q", "answer": "benign"}\n\n{"question": "r", "answer": "MALICIOUS", "id": "x"}\n')
    write("dataset_rows", "dup-keys", '{"question": "q", "answer": "Benign", "answer": "Malicious", "id": "a", "id": "b"}\n')
    write("dataset_rows", "e2-no-id", json.dumps({k: v for k, v in TF[0].items() if k != "id"}) + "\n")
    write("dataset_rows", "e2-dup-id", jsonl([TF[0], TF[0]]))
    write("dataset_rows", "crlf", jsonl(E1_TEST[:2]).replace("\n", "\r\n"))

    for name, (header, body) in API.items():
        write("api_body", name, header + "\n" + json.dumps(body))

    # Episodes: one message (or a list) stepped N times in one episode.
    kube = {"id": "c1", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}
    final_e2 = {"role": "assistant", "content": json.dumps({"violations": [], "patch": "", "confidence": 0.5})}
    for name, (header, body) in {
        "e1-answer": ("e1 8", {"role": "assistant", "content": '{"label":"Malicious","confidence":0.8}'}),
        "e1-user": ("e1 2", {"role": "user", "content": "hi"}),
        "e2-padded-calls": ("e2 64", {"role": "assistant", "content": "p" * 2048, "tool_calls": [kube]}),
        "e2-then-answer": ("e2 6", [{"role": "assistant", "content": None, "tool_calls": [kube, kube]}, final_e2]),
        "e2-flat-unknown-tool": ("e2 64", {"role": "assistant", "content": None, "tool_calls": [
            {"id": "x" * 200, "name": "n" * 300, "arguments": {"paths": ["/etc/passwd"]}}] * 8}),
        "e2-many-tiny-calls": ("e2 32", {"role": "assistant", "content": None, "tool_calls": [
            {"id": str(i), "name": "run_opa", "arguments": "{}"} for i in range(200)]}),
        "e4-tool-call": ("e4 16", {"role": "assistant", "content": "x", "tool_calls": [kube]}),
    }.items():
        write("episodes", name, header + "\n" + json.dumps(body))


if __name__ == "__main__":
    main()
    for d in sorted(CORPUS.iterdir()):
        print(f"{d.name}: {len(list(d.glob('seed-*')))} seeds")
