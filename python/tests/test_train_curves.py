"""Learning-curve SVGs (svbench.train.curves): deterministic, well-formed, and honest about missing values."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from svbench.train import curves

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def polylines(root: ET.Element) -> list[ET.Element]:
    return root.findall(".//svg:polyline", NS)


def point_count(el: ET.Element) -> int:
    return len(el.get("points", "").split())


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{{{NS['svg']}}}text")]


def write_jsonl(path: Path, rows: list[dict | str]) -> Path:
    """One line per row: a dict as JSON (NaN written as null, as trainers do), a string verbatim."""
    lines = []
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
        else:
            clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            lines.append(json.dumps(clean))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def grpo_row(step: int, **over: object) -> dict:
    row = {
        "step": step,
        "reward": 0.4 + 0.01 * step,
        "rewards/utility/mean": 0.5,
        "rewards/calibration/mean": 0.2 + 0.02 * step,
        "rewards/format/mean": None,
        "kl": 0.001 * step,
        "completions/mean_length": 14.5,
        "svbench/parse_failure_rate": 0.125,
        "svbench/abstain_rate": 0.0,
        "phase": "grpo",
    }
    row.update(over)
    return row


TWO = {"first": [(0, 0.1), (1, 0.3), (2, 0.2)], "second": [(0, 0.5), (1, 0.6), (2, 0.9)]}


def chart(series=TWO, **kw) -> str:
    kw.setdefault("title", "t")
    kw.setdefault("x_label", "step")
    kw.setdefault("y_label", "value")
    return curves.line_chart(series, **kw)


# ---------------------------------------------------------------- line_chart


def test_same_input_gives_the_same_bytes():
    bands = {"first": [(0, 0.0, 0.2), (1, 0.2, 0.4), (2, 0.1, 0.3)]}
    a = chart(dict(TWO), bands=bands)
    b = chart({k: list(v) for k, v in TWO.items()}, bands=dict(bands))
    assert a.encode() == b.encode()
    assert a.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')


def test_parses_with_one_polyline_per_series_and_a_legend():
    root = parse(chart())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("svg:title", NS).text == "t"
    lines = polylines(root)
    assert [p.get("data-series") for p in lines] == ["first", "second"]
    assert [point_count(p) for p in lines] == [3, 3]
    assert len({p.get("stroke") for p in lines}) == 2
    legend = root.find(".//svg:g[@class='legend']", NS)
    assert [t.text for t in legend.findall("svg:text", NS)] == ["first", "second"]


def test_a_single_series_has_no_legend():
    root = parse(chart({"only": [(0, 1), (1, 2)]}))
    assert root.find(".//svg:g[@class='legend']", NS) is None
    assert len(polylines(root)) == 1


def test_null_nan_and_inf_are_skipped_not_drawn_as_zero():
    pts = [(0, 0.5), (1, None), (2, math.nan), (3, math.inf), (4, 0.7), (math.nan, 0.1), (5, -math.inf), (6, 0.6)]
    root = parse(chart({"r": pts}))
    (line,) = polylines(root)
    assert point_count(line) == 3
    # Nothing reaches 0: the y axis spans the finite values only.
    labels = [t.text for t in root.find(".//svg:g[@class='y-ticks']", NS)]
    assert labels[0] != "0" and root.find(".//svg:line[@class='zero']", NS) is None


def test_no_data_chart():
    for series in ({}, {"r": []}, {"r": [(0, None), (1, math.nan)]}):
        root = parse(chart(series, title="empty"))
        assert "no data" in texts(root)
        assert polylines(root) == []
        assert root.find("svg:title", NS).text == "empty"


def test_single_point_and_constant_values_get_a_padded_axis():
    root = parse(chart({"r": [(3, 0.25)]}))
    (line,) = polylines(root)
    assert point_count(line) == 1
    assert root.find(".//svg:circle", NS) is not None  # a lone point is still visible
    labels = [t.text for t in root.find(".//svg:g[@class='y-ticks']", NS)]
    assert len(labels) >= 2 and len(set(labels)) == len(labels)

    root = parse(chart({"r": [(0, 0.0), (1, 0.0), (2, 0.0)]}))
    y = [float(t.text) for t in root.find(".//svg:g[@class='y-ticks']", NS)]
    assert y[0] < 0 < y[-1]
    assert root.find(".//svg:line[@class='zero']", NS) is not None


def test_very_large_and_small_values():
    for pts in ([(0, 1e-9), (1, 3e-9)], [(0, 1e12), (1, 1.5e12)], [(0, -1.7e308), (1, 1.7e308)], [(0, 5e-324)]):
        root = parse(chart({"r": pts}))
        (line,) = polylines(root)
        assert point_count(line) == len(pts)
        for xy in line.get("points").split():
            assert all(math.isfinite(float(c)) for c in xy.split(","))
    labels = [t.text for t in parse(chart({"r": [(0, 1e-9), (1, 3e-9)]})).find(".//svg:g[@class='y-ticks']", NS)]
    assert labels == ["1e-09", "1.5e-09", "2e-09", "2.5e-09", "3e-09"]


def test_text_is_xml_escaped():
    svg = chart({"a <b>": [(0, 1)], 'c & "d"': [(0, 2)]}, title="reward <&> x", x_label="<x>", y_label="&y")
    assert "reward &lt;&amp;&gt; x" in svg
    root = parse(svg)
    assert root.find("svg:title", NS).text == "reward <&> x"
    assert {"reward <&> x", "<x>", "&y", "a <b>", 'c & "d"'} <= set(texts(root))
    assert [p.get("data-series") for p in polylines(root)] == ["a <b>", 'c & "d"']


def test_bands_are_polygons_in_the_series_colour():
    bands = {"first": [(0, 0.0, 0.2), (1, None, 0.4), (2, 0.1, 0.3)]}
    root = parse(chart(bands=bands))
    (band,) = root.findall(".//svg:polygon", NS)
    assert band.get("data-series") == "first"
    assert point_count(band) == 4  # two finite triples, upper then lower edge
    assert band.get("fill") == polylines(root)[0].get("stroke")
    with pytest.raises(ValueError, match="missing"):
        chart(bands={"missing": [(0, 0, 1)]})


def test_zero_line_when_zero_is_in_range():
    assert parse(chart({"r": [(0, -0.5), (1, 0.5)]})).find(".//svg:line[@class='zero']", NS) is not None
    assert parse(chart({"r": [(0, 0.5), (1, 0.9)]})).find(".//svg:line[@class='zero']", NS) is None


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0, 1, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0, 10, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]),
        (0, 100, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
        (-3, 7, [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]),
        (0.001, 0.0042, [0.001, 0.0015, 0.002, 0.0025, 0.003, 0.0035, 0.004, 0.0045]),
        (0, 0.3, [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]),
        (12, 487, [0.0, 100.0, 200.0, 300.0, 400.0, 500.0]),
        (0, 0, [-1.0, -0.5, 0.0, 0.5, 1.0]),
    ],
)
def test_nice_ticks(lo, hi, expected):
    assert curves.nice_ticks(lo, hi) == expected


def test_nice_ticks_cover_the_data_on_a_1_2_5_step():
    for lo, hi in [(0.13, 0.97), (-2.5e-5, 7.1e-5), (1e6, 1.2e6), (3, 3), (-17, -4)]:
        ticks = curves.nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi and len(ticks) <= 12
        step = ticks[1] - ticks[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert min(abs(mantissa - m) for m in (1, 2, 5, 10)) < 1e-6


# ---------------------------------------------------------------- metrics files


def test_read_metrics_skips_blank_lines(tmp_path):
    path = write_jsonl(tmp_path / "metrics.jsonl", [{"step": 1, "loss": 0.5}, "", "   ", {"step": 2, "loss": None}])
    assert curves.read_metrics(path) == [{"step": 1, "loss": 0.5}, {"step": 2, "loss": None}]


@pytest.mark.parametrize("bad", ['{"step": 3, "loss": ', "[1, 2]"])
def test_malformed_line_names_file_and_line(tmp_path, bad):
    path = write_jsonl(tmp_path / "metrics.jsonl", [{"step": 1}, "", bad, {"step": 4}])
    with pytest.raises(ValueError, match=r"metrics\.jsonl:3: ") as e:
        curves.read_metrics(path)
    assert str(path) in str(e.value)


def test_write_run_curves_writes_one_file_per_present_metric(tmp_path):
    rows = [grpo_row(1, kl=None), grpo_row(2, kl=math.nan), "", grpo_row(3)]
    rows[0].pop("svbench/abstain_rate")  # missing from some lines is fine
    write_jsonl(tmp_path / "metrics.jsonl", rows)
    paths = curves.write_run_curves(tmp_path)
    assert [p.name for p in paths] == [
        "reward-utility.svg",
        "reward-calibration.svg",  # rewards/format/mean is null everywhere: no file
        "reward.svg",
        "kl.svg",
        "completion-length.svg",
        "parse-failure-rate.svg",
        "abstain-rate.svg",
    ]
    assert sorted(p.name for p in (tmp_path / "curves").iterdir()) == sorted(p.name for p in paths)
    assert all(p.parent == tmp_path / "curves" for p in paths)
    kl = parse(paths[3].read_text(encoding="utf-8"))
    assert [point_count(p) for p in polylines(kl)] == [1]  # the null and the NaN step are skipped
    utility = parse(paths[0].read_text(encoding="utf-8"))
    assert utility.find("svg:title", NS).text == "reward component utility"
    # Rewriting gives the same bytes.
    before = [p.read_bytes() for p in paths]
    assert [p.read_bytes() for p in curves.write_run_curves(tmp_path)] == before


def test_sft_then_grpo_loss_is_one_series_per_phase(tmp_path):
    rows = [{"step": n, "loss": 1.0 / n, "phase": "sft"} for n in (1, 2, 3)]
    rows += [{"step": n, "loss": 0.01 * n, "phase": "grpo", "reward": 0.5} for n in (1, 2)]
    write_jsonl(tmp_path / "metrics.jsonl", rows)
    paths = curves.write_run_curves(tmp_path)
    assert [p.name for p in paths] == ["reward.svg", "loss.svg"]
    loss = parse(paths[1].read_text(encoding="utf-8"))
    assert [(p.get("data-series"), point_count(p)) for p in polylines(loss)] == [("sft", 3), ("grpo", 2)]


def test_curves_markdown_links_relative_to_the_run(tmp_path):
    write_jsonl(tmp_path / "metrics.jsonl", [grpo_row(1), grpo_row(2)])
    paths = curves.write_run_curves(tmp_path)
    md = curves.curves_markdown(tmp_path, paths)
    assert md.startswith("## Learning curves\n\n")
    assert "![reward component utility](curves/reward-utility.svg)" in md
    assert "![total reward](curves/reward.svg)" in md
    assert md.count("![") == len(paths)
    assert "No metrics" in curves.curves_markdown(tmp_path, [])


def test_metric_stems():
    assert curves.metric_stem("rewards/utility/mean") == "reward-utility"
    assert curves.metric_stem("completions/mean_length") == "completion-length"
    assert curves.metric_stem("svbench/parse_failure_rate") == "parse-failure-rate"
    assert curves.metric_stem("svbench/abstain_rate") == "abstain-rate"
    assert curves.metric_stem("rewards/Odd Name!/mean") == "reward-odd-name"
    assert curves.metric_stem("train/grad_norm") == "train-grad-norm"


# ---------------------------------------------------------------- studies


def test_comparison_has_a_line_and_a_band_per_variant(tmp_path):
    runs = {}
    for variant, offset in (("A: sum_then_normalize", 0.0), ("B: normalize_then_sum", 0.2)):
        runs[variant] = [
            write_jsonl(
                tmp_path / variant[0] / f"seed{seed}" / "metrics.jsonl",
                [grpo_row(s, reward=offset + 0.1 * s + 0.01 * seed) for s in range(1, 5)],
            )
            for seed in range(3)
        ]
    # One seed misses a step and has a null: the mean is over the seeds that logged it.
    write_jsonl(runs["A: sum_then_normalize"][2], [grpo_row(1, reward=None), grpo_row(2, reward=0.2)])
    path = curves.write_comparison_curves(tmp_path / "study", runs, "reward")
    assert path == tmp_path / "study" / "compare-reward.svg"
    root = parse(path.read_text(encoding="utf-8"))
    lines = polylines(root)
    assert [p.get("data-series") for p in lines] == list(runs)
    assert [point_count(p) for p in lines] == [4, 4]
    bands = root.findall(".//svg:polygon[@class='band']", NS)
    assert [b.get("data-series") for b in bands] == list(runs)
    assert [b.get("fill") for b in bands] == [p.get("stroke") for p in lines]
    legend = root.find(".//svg:g[@class='legend']", NS)
    assert [t.text for t in legend.findall("svg:text", NS)] == list(runs)


def test_comparison_smoothing_is_trailing(tmp_path):
    seed = write_jsonl(tmp_path / "m.jsonl", [{"step": s, "kl": v} for s, v in enumerate([0.0, 0.0, 3.0, 0.0])])
    raw = curves.write_comparison_curves(tmp_path / "raw", {"x": [seed]}, "kl")
    smooth = curves.write_comparison_curves(tmp_path / "smooth", {"x": [seed]}, "kl", smooth=2)
    assert raw.name == smooth.name == "compare-kl.svg"
    # Trailing window 2: 0, 0, 1.5, 1.5 — the spike never shows before step 2.
    assert curves._trailing_mean([0.0, 0.0, 3.0, 0.0], 2) == [0.0, 0.0, 1.5, 1.5]
    assert "trailing mean of 2" in parse(smooth.read_text(encoding="utf-8")).find("svg:title", NS).text
    with pytest.raises(ValueError):
        curves.write_comparison_curves(tmp_path, {"x": [seed]}, "kl", smooth=0)


def test_component_comparison_file_name(tmp_path):
    seed = write_jsonl(tmp_path / "m.jsonl", [grpo_row(1), grpo_row(2)])
    path = curves.write_comparison_curves(tmp_path, {"v": [seed]}, "rewards/utility/mean")
    assert path.name == "compare-reward-utility.svg"


# ---------------------------------------------------------------- command line


def test_main_writes_and_prints_paths(tmp_path, capsys):
    write_jsonl(tmp_path / "metrics.jsonl", [{"step": 1, "loss": 0.5, "phase": "sft"}])
    assert curves.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "curves" / "loss.svg")]
    write_jsonl(tmp_path / "bad" / "metrics.jsonl", ["{"])
    assert curves.main([str(tmp_path / "bad")]) == 1
    assert "metrics.jsonl:1" in capsys.readouterr().err


def test_module_runs_as_a_script(tmp_path):
    write_jsonl(tmp_path / "metrics.jsonl", [{"step": 1, "kl": 0.1}, {"step": 2, "kl": 0.2}])
    src = str(Path(curves.__file__).parents[2])
    out = subprocess.run(
        [sys.executable, "-m", "svbench.train.curves", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": src, "PATH": ""},
    )
    assert out.stdout.split() == [str(tmp_path / "curves" / "kl.svg")]
