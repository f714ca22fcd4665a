#!/usr/bin/env python3
"""Fails when library code exposes an error as a bare `String`.

Library crates use typed errors (see ../shared/STYLE.md): a public function,
method or function-pointer type returning `Result<_, String>` makes callers
match on text. This lists every `pub` item (any `pub(...)` visibility
included) in `crates/*/src` outside test code whose signature returns
`Result<…, String>`, and exits 1 if there is one.

Usage: python3 scripts/check-typed-errors.py [REPO_ROOT]
"""

import pathlib
import re
import sys

# `pub`, `pub(crate)`, `pub(super)`, `pub(in path)`, then a fn or a type.
ITEM = re.compile(r"\bpub(?:\([^)]*\))?\s+(?:(?:const|async|unsafe|extern\s+\"[^\"]*\")\s+)*(fn|type)\b")


def strip_tests(text: str) -> str:
    """Drops `#[cfg(test)]` modules (written at the end of a file here)."""
    m = re.search(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


def strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def signature(text: str, start: int) -> str:
    """The item from `start` to its body or its end (`{` or `;` at depth 0)."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            # `->` is not a closing bracket.
            if not (c == ">" and i > 0 and text[i - 1] == "-"):
                depth -= 1
        elif c in "{;" and depth <= 0:
            return text[start:i]
    return text[start:]


def result_error_types(sig: str):
    """The error argument of every `Result<T, E>` in `sig`."""
    for m in re.finditer(r"\bResult\s*<", sig):
        i, depth, args, cur = m.end(), 1, [], ""
        while i < len(sig) and depth > 0:
            c = sig[i]
            if c == "<" or c == "(" or c == "[":
                depth += 1
            elif (c == ">" and sig[i - 1] != "-") or c == ")" or c == "]":
                depth -= 1
                if depth == 0:
                    break
            if c == "," and depth == 1:
                args.append(cur)
                cur = ""
            else:
                cur += c
            i += 1
        args.append(cur)
        if len(args) == 2:
            yield args[1].strip()


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = []
    for path in sorted(root.glob("crates/*/src/**/*.rs")):
        if path.name == "tests.rs" or "tests" in path.relative_to(root).parts[3:-1]:
            continue
        text = strip_comments(strip_tests(path.read_text(encoding="utf-8")))
        for m in ITEM.finditer(text):
            sig = signature(text, m.start())
            if "String" in set(result_error_types(sig)):
                line = text.count("\n", 0, m.start()) + 1
                name = re.search(r"\b(?:fn|type)\s+(\w+)", sig)
                found.append(f"{path.relative_to(root)}:{line}: {name.group(1) if name else '?'}")
    for f in found:
        print(f"public Result<_, String>: {f}")
    if found:
        print(f"{len(found)} public item(s) return a bare String error; give them a typed error.")
        return 1
    print("no public Result<_, String> in library code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
