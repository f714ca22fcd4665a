"""Learning-curve SVGs for training runs, standard library only.

A run directory holds ``metrics.jsonl``: one JSON object per logged step
(TRL's log names plus svbench's own, e.g. ``reward``,
``rewards/<name>/mean``, ``kl``, ``svbench/parse_failure_rate``).
``write_run_curves`` draws one chart per metric in ``CURVES`` into
``<run>/curves/``; ``write_comparison_curves`` draws one metric for several
variants of a study, the mean across seeds as the line and the min–max
across seeds as a shaded band.

The SVG is deterministic: the same input gives byte-identical output (fixed
number formatting, no timestamps, no random ids), so charts can be committed
and diffed. Values that are null, NaN or infinite are skipped, never drawn as 0.

``python -m svbench.train.curves RUN_DIR`` writes the curves of one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = [
    "CURVES",
    "Curve",
    "curves_markdown",
    "line_chart",
    "main",
    "metric_stem",
    "nice_ticks",
    "read_metrics",
    "write_comparison_curves",
    "write_run_curves",
]

#: Okabe–Ito, distinguishable with the common colour-vision deficiencies.
#: Yellow is last: it is hard to see on white.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")

_SVG_NS = "http://www.w3.org/2000/svg"
_COMPONENT = re.compile(r"^rewards/(.+)/mean$")
# Characters XML 1.0 does not allow, even escaped.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Curve:
    """One standard chart of a run.

    ``key`` is the metric's log name; ``rewards/{name}/mean`` stands for every
    reward component, and ``{name}`` in ``title`` and ``stem`` is filled in.
    ``stem`` is the SVG file name without ``.svg``.
    """

    key: str
    title: str
    y_label: str
    stem: str


#: What ``write_run_curves`` plots for a run, in this order.
CURVES: tuple[Curve, ...] = (
    Curve("rewards/{name}/mean", "reward component {name}", "mean reward", "reward-{name}"),
    Curve("reward", "total reward", "mean reward", "reward"),
    Curve("kl", "KL divergence to the reference", "KL", "kl"),
    Curve("completions/mean_length", "completion length", "mean tokens", "completion-length"),
    Curve("svbench/parse_failure_rate", "parse failure rate", "fraction of completions", "parse-failure-rate"),
    Curve("svbench/abstain_rate", "abstain rate", "fraction of completions", "abstain-rate"),
    Curve("loss", "training loss", "loss", "loss"),
)


# ---------------------------------------------------------------- numbers


def _finite(value: Any) -> float | None:
    """``value`` as a float, or None where it is not a finite number (null, NaN, inf, a string, a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        f = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return f if math.isfinite(f) else None


def _num(v: float) -> str:
    """A coordinate: two decimals, trailing zeros dropped, never ``-0``."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _step(lo: float, hi: float, count: int) -> tuple[int, int]:
    """A 1-2-5 step ``m · 10^e`` as ``(m, e)`` giving about ``count`` intervals over [lo, hi]."""
    raw = hi / count - lo / count  # divided first: hi - lo can overflow
    exp = math.floor(math.log10(raw))
    frac = float(Decimal(raw).scaleb(-exp))  # in [1, 10), without float overflow at the extremes
    # The 1-2-5 mantissa nearest on a log scale (d3's thresholds), so the count is about ``count``.
    if frac >= math.sqrt(50):
        return 1, exp + 1
    if frac >= math.sqrt(10):
        return 5, exp
    return (2, exp) if frac >= math.sqrt(2) else (1, exp)


def _ticks(lo: float, hi: float, count: int) -> tuple[list[float], int]:
    """Nice ticks covering [lo, hi] (lo < hi) and the step's decimal exponent."""
    m, exp = _step(lo, hi, count)
    step = float(Decimal(m).scaleb(exp))
    # The tolerance keeps a bound that is a tick up to rounding (0.6 / 0.2) from adding one more.
    kmin = math.floor(lo / step + 1e-9)
    kmax = math.ceil(hi / step - 1e-9)
    if kmax - kmin > 10 * count:  # only where float precision ran out; keep the chart bounded
        return [lo, hi], exp - 2  # the bounds are not multiples of the step: label them more precisely
    # Decimal makes 3·0.2 the float nearest 0.6, not 0.6000000000000001.
    ticks = [float(Decimal(k * m).scaleb(exp)) for k in range(kmin, kmax + 1)]
    ticks = [t for t in dict.fromkeys(ticks) if math.isfinite(t)]
    if len(ticks) < 2 or ticks[0] > lo or ticks[-1] < hi:  # a nice bound overflowed
        return [lo, hi], exp - 2
    return ticks, exp


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Tick values on a 1-2-5 step for about ``count`` intervals, the first ≤ ``lo`` and the last ≥ ``hi``.

    ``nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]``. Equal bounds are padded
    (by 10% of the value, or 1 around 0) so a constant series still gets an axis.
    """
    return _axis(lo, hi, count)[0]


def _axis(lo: float, hi: float, count: int) -> tuple[list[float], list[str]]:
    """Ticks and their labels for data in [lo, hi]."""
    lo, hi = float(lo), float(hi)
    if lo > hi:
        lo, hi = hi, lo
    if lo == hi:
        v, pad = lo, abs(lo) * 0.1 or 1.0
        lo, hi = v - pad, v + pad
        if math.isinf(hi):  # near the float maximum: pad on the inside only
            lo, hi = v - 2 * pad, v
        elif math.isinf(lo):
            lo, hi = v, v + 2 * pad
    if not hi / count - lo / count > 0:  # denormal range: nothing sensible to subdivide
        lo, hi = lo - 1.0, hi + 1.0
    ticks, exp = _ticks(lo, hi, count)
    return ticks, _tick_labels(ticks, exp)


def _tick_labels(ticks: Sequence[float], exp: int) -> list[str]:
    """Labels with as many digits as the step needs; scientific outside [1e-4, 1e6)."""
    magnitude = max(abs(t) for t in ticks)
    out = []
    for t in ticks:
        if t == 0:
            out.append("0")
        elif 1e-4 <= magnitude < 1e6 and exp >= -6:
            out.append(f"{t:.{max(0, -exp)}f}")
        else:
            digits = max(1, math.floor(math.log10(magnitude)) - exp + 1)
            out.append(f"{t:.{digits}g}")
    return out


# ---------------------------------------------------------------- SVG


def _esc(text: str) -> str:
    """``text`` safe in XML content and in double-quoted attributes."""
    text = _XML_INVALID.sub("\ufffd", str(text))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _points(series: Iterable[tuple[Any, Any]]) -> list[tuple[float, float]]:
    out = []
    for item in series:
        x, y = _finite(item[0]), _finite(item[1])
        if x is not None and y is not None:
            out.append((x, y))
    return out


def _band_points(band: Iterable[tuple[Any, Any, Any]]) -> list[tuple[float, float, float]]:
    out = []
    for item in band:
        x, lo, hi = _finite(item[0]), _finite(item[1]), _finite(item[2])
        if x is not None and lo is not None and hi is not None:
            out.append((x, min(lo, hi), max(lo, hi)))
    return out


def line_chart(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 360,
    bands: Mapping[str, Sequence[tuple[float, float, float]]] | None = None,
) -> str:
    """A standalone SVG document: one polyline per series of ``(x, y)`` points.

    Series are drawn in order with colours from ``PALETTE`` (cycled). Points
    whose x or y is None, NaN or infinite are left out; a series's remaining
    points are joined in the order given. ``bands`` maps a series name to
    ``(x, lo, hi)`` triples, drawn as a shaded polygon in the series's colour
    under the lines (a seed min–max, an interval). With more than one series a
    legend names them. Without any finite point the chart says "no data".
    The output depends only on the arguments.
    """
    bands = dict(bands or {})
    unknown = [name for name in bands if name not in series]
    if unknown:
        raise ValueError(f"bands for series that are not plotted: {unknown!r}")
    lines = {name: _points(pts) for name, pts in series.items()}
    shades = {name: _band_points(b) for name, b in bands.items()}
    xs = [x for pts in lines.values() for x, _ in pts] + [x for b in shades.values() for x, _, _ in b]
    ys = [y for pts in lines.values() for _, y in pts]
    ys += [v for b in shades.values() for _, lo, hi in b for v in (lo, hi)]
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(series)}

    # Layout: the legend takes a column on the right, sized to its longest label.
    legend = len(series) > 1
    labels = {name: name if lines[name] or shades.get(name) else f"{name} (no data)" for name in series}
    legend_w = min(max((len(s) for s in labels.values()), default=0) * 7 + 34, width * 0.4) if legend else 0
    left, right, top, bottom = 72.0, width - 16.0 - legend_w, 40.0, height - 48.0
    right, bottom = max(right, left + 1), max(bottom, top + 1)

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="{_SVG_NS}" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="sans-serif" font-size="12">',
        f"<title>{_esc(title)}</title>",
        f'<rect width="{_num(width)}" height="{_num(height)}" fill="#ffffff"/>',
        f'<text class="chart-title" x="{_num(width / 2)}" y="24" text-anchor="middle" font-size="15">'
        f"{_esc(title)}</text>",
        f'<text class="x-label" x="{_num((left + right) / 2)}" y="{_num(height - 10)}" text-anchor="middle">'
        f"{_esc(x_label)}</text>",
        f'<text class="y-label" x="16" y="{_num((top + bottom) / 2)}" text-anchor="middle" '
        f'transform="rotate(-90 16 {_num((top + bottom) / 2)})">{_esc(y_label)}</text>',
    ]
    frame = (
        f'<rect class="frame" x="{_num(left)}" y="{_num(top)}" width="{_num(right - left)}" '
        f'height="{_num(bottom - top)}" fill="none" stroke="#444444"/>'
    )

    if not xs:
        out.append(frame)
        out.append(
            f'<text class="no-data" x="{_num((left + right) / 2)}" y="{_num((top + bottom) / 2)}" '
            f'text-anchor="middle" fill="#666666">no data</text>'
        )
    else:
        x_ticks, x_text = _axis(min(xs), max(xs), 6)
        y_ticks, y_text = _axis(min(ys), max(ys), 5)
        x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

        def px(x: float) -> float:  # halves first: x1 - x0 can overflow
            return left + (x / 2 - x0 / 2) / (x1 / 2 - x0 / 2) * (right - left)

        def py(y: float) -> float:
            return bottom - (y / 2 - y0 / 2) / (y1 / 2 - y0 / 2) * (bottom - top)

        out.append('<g class="grid" stroke="#e0e0e0" stroke-width="1">')
        for t in y_ticks:
            out.append(f'<line x1="{_num(left)}" y1="{_num(py(t))}" x2="{_num(right)}" y2="{_num(py(t))}"/>')
        for t in x_ticks:
            out.append(f'<line x1="{_num(px(t))}" y1="{_num(top)}" x2="{_num(px(t))}" y2="{_num(bottom)}"/>')
        out.append("</g>")
        if y0 <= 0 <= y1:
            out.append(
                f'<line class="zero" x1="{_num(left)}" y1="{_num(py(0))}" x2="{_num(right)}" y2="{_num(py(0))}" '
                f'stroke="#888888" stroke-dasharray="4 3"/>'
            )
        out.append(frame)
        out.append('<g class="y-ticks" text-anchor="end">')
        for t, s in zip(y_ticks, y_text):
            out.append(f'<text x="{_num(left - 6)}" y="{_num(py(t))}" dy="0.32em">{_esc(s)}</text>')
        out.append("</g>")
        out.append('<g class="x-ticks" text-anchor="middle">')
        for t, s in zip(x_ticks, x_text):
            out.append(f'<text x="{_num(px(t))}" y="{_num(bottom + 16)}">{_esc(s)}</text>')
        out.append("</g>")

        for name, band in shades.items():
            if not band:
                continue
            ring = [(px(x), py(hi)) for x, _, hi in band] + [(px(x), py(lo)) for x, lo, _ in reversed(band)]
            out.append(
                f'<polygon class="band" data-series="{_esc(name)}" fill="{colour[name]}" fill-opacity="0.18" '
                f'stroke="none" points="{" ".join(f"{_num(a)},{_num(b)}" for a, b in ring)}"/>'
            )
        for name, pts in lines.items():
            if not pts:
                continue
            out.append(
                f'<polyline class="series" data-series="{_esc(name)}" fill="none" stroke="{colour[name]}" '
                f'stroke-width="1.8" stroke-linejoin="round" '
                f'points="{" ".join(f"{_num(px(x))},{_num(py(y))}" for x, y in pts)}"/>'
            )
            if len(pts) == 1:  # a one-point polyline draws nothing
                x, y = pts[0]
                out.append(f'<circle cx="{_num(px(x))}" cy="{_num(py(y))}" r="3" fill="{colour[name]}"/>')

    if legend:
        lx = right + 12
        out.append('<g class="legend">')
        for i, name in enumerate(series):
            ly = top + 8 + 18 * i
            out.append(
                f'<line x1="{_num(lx)}" y1="{_num(ly)}" x2="{_num(lx + 18)}" y2="{_num(ly)}" '
                f'stroke="{colour[name]}" stroke-width="3"/>'
            )
            out.append(f'<text x="{_num(lx + 24)}" y="{_num(ly)}" dy="0.32em">{_esc(labels[name])}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- metrics files


def read_metrics(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a ``metrics.jsonl``, one JSON object a line; blank lines are skipped.

    A line that is not a JSON object raises ``ValueError`` naming the file and
    the line number (1-based).
    """
    records = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: malformed JSON: {e.msg} (column {e.colno})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object, got {type(record).__name__}")
            records.append(record)
    return records


def _x(record: Mapping[str, Any], index: int) -> float:
    """The record's ``step``, or its position in the file where it has none."""
    step = _finite(record.get("step"))
    return float(index) if step is None else step


def _has(records: Sequence[Mapping[str, Any]], key: str) -> bool:
    return any(_finite(r.get(key)) is not None for r in records)


def _safe(name: str) -> str:
    """A file-name fragment: lower-case letters, digits and single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "metric"


def metric_stem(metric: str) -> str:
    """The file stem for ``metric``: the ``CURVES`` name (``rewards/utility/mean`` → ``reward-utility``,
    ``completions/mean_length`` → ``completion-length``), otherwise the key made safe."""
    m = _COMPONENT.match(metric)
    if m:
        return f"reward-{_safe(m.group(1))}"
    for curve in CURVES:
        if curve.key == metric:
            return curve.stem
    return _safe(metric)


def _title(metric: str) -> tuple[str, str]:
    """Title and y-axis label of ``metric``."""
    m = _COMPONENT.match(metric)
    for curve in CURVES:
        if m and curve.key == "rewards/{name}/mean":
            return curve.title.format(name=m.group(1)), curve.y_label
        if curve.key == metric:
            return curve.title, curve.y_label
    return metric, metric


def _run_metrics(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The metric keys of ``CURVES`` with at least one finite value, in ``CURVES`` order.

    Reward components come in the order their keys first appear (the trainer's order).
    """
    keys: list[str] = []
    for curve in CURVES:
        if curve.key == "rewards/{name}/mean":
            components = dict.fromkeys(k for r in records for k in r if _COMPONENT.match(k))
            keys += [k for k in components if _has(records, k)]
        elif _has(records, curve.key):
            keys.append(curve.key)
    return keys


def _run_series(records: Sequence[Mapping[str, Any]], key: str) -> dict[str, list[tuple[float, float]]]:
    """``key`` over steps; one series per ``phase`` where several phases logged it (SFT then GRPO)."""
    by_phase: dict[str, list[tuple[float, float]]] = {}
    for i, r in enumerate(records):
        y = _finite(r.get(key))
        if y is not None:
            phase = r.get("phase")
            by_phase.setdefault(phase if isinstance(phase, str) else "(no phase)", []).append((_x(r, i), y))
    if len(by_phase) <= 1:
        return {key: [p for pts in by_phase.values() for p in pts]}
    return by_phase


def write_run_curves(run_dir: str | os.PathLike[str], metrics_file: str = "metrics.jsonl") -> list[Path]:
    """Write ``run_dir/curves/<stem>.svg`` for every ``CURVES`` metric with a finite value.

    Returns the paths in ``CURVES`` order (reward components in the order the
    log first names them). A metric that is missing or null on every line gets
    no file. Raises ``ValueError`` for a malformed metrics line.
    """
    run = Path(run_dir)
    records = read_metrics(run / metrics_file)
    out_dir = run / "curves"
    paths: list[Path] = []
    used: set[str] = set()
    for key in _run_metrics(records):
        stem = metric_stem(key)
        base, n = stem, 2
        while stem in used:  # "a_b" and "a-b" make the same stem
            stem, n = f"{base}-{n}", n + 1
        used.add(stem)
        title, y_label = _title(key)
        svg = line_chart(_run_series(records, key), title=title, x_label="step", y_label=y_label)
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{stem}.svg"
        path.write_bytes(svg.encode("utf-8"))
        paths.append(path)
    return paths


def _svg_title(path: Path) -> str:
    """The ``<title>`` of an SVG this module wrote, or its stem."""
    try:
        node = ET.parse(path).getroot().find(f"{{{_SVG_NS}}}title")
    except (OSError, ET.ParseError):
        node = None
    return node.text if node is not None and node.text else path.stem


def curves_markdown(run_dir: str | os.PathLike[str], paths: Sequence[str | os.PathLike[str]]) -> str:
    """A "## Learning curves" Markdown section with one image per chart, linked relative to ``run_dir``.

    Meant for the run's ``report.md`` (which lives in ``run_dir``); the alt text
    is the chart's title.
    """
    lines = ["## Learning curves", ""]
    if not paths:
        lines.append("No metrics were logged.")
    for p in paths:
        path = Path(p)
        rel = Path(os.path.relpath(path, run_dir)).as_posix()
        alt = re.sub(r"([\\\[\]])", r"\\\1", _svg_title(path))
        lines.append(f"![{alt}]({quote(rel)})")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------- studies


def _trailing_mean(values: Sequence[float], window: int) -> list[float]:
    """Each value replaced by the mean of it and up to ``window - 1`` values before it."""
    out = []
    for i in range(len(values)):
        recent = values[max(0, i - window + 1) : i + 1]
        out.append(math.fsum(recent) / len(recent))
    return out


def _seed_curve(path: Path, metric: str, smooth: int) -> dict[float, float]:
    """``step → value`` of one seed; a step logged twice keeps its last value."""
    by_step: dict[float, float] = {}
    for i, r in enumerate(read_metrics(path)):
        y = _finite(r.get(metric))
        if y is not None:
            by_step[_x(r, i)] = y
    steps = sorted(by_step)
    return dict(zip(steps, _trailing_mean([by_step[s] for s in steps], smooth)))


def write_comparison_curves(
    out_dir: str | os.PathLike[str],
    runs: Mapping[str, Sequence[str | os.PathLike[str]]],
    metric: str,
    *,
    smooth: int = 1,
) -> Path:
    """Write ``out_dir/compare-<stem>.svg``: ``metric`` for each variant of a study.

    ``runs`` maps a variant label to the ``metrics.jsonl`` files of its seeds.
    Each variant is one line, the mean across seeds at each step, over a band
    from the minimum to the maximum across seeds. A step some seeds did not log
    (or logged as null) is averaged over the seeds that have it.

    ``smooth`` > 1 applies a *trailing* moving average to each seed before the
    seeds are combined: a point is the mean of itself and the ``smooth - 1``
    logged points before it (fewer at the start), so a curve never looks ahead.
    """
    if smooth < 1:
        raise ValueError(f"smooth must be at least 1, got {smooth}")
    series: dict[str, list[tuple[float, float]]] = {}
    bands: dict[str, list[tuple[float, float, float]]] = {}
    for label, files in runs.items():
        seeds = [_seed_curve(Path(f), metric, smooth) for f in files]
        steps = sorted({s for seed in seeds for s in seed})
        series[label], bands[label] = [], []
        for s in steps:
            values = [seed[s] for seed in seeds if s in seed]
            series[label].append((s, math.fsum(values) / len(values)))
            bands[label].append((s, min(values), max(values)))
    title, y_label = _title(metric)
    title += " — mean over seeds, band min–max"
    if smooth > 1:
        title += f", trailing mean of {smooth} points"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"compare-{metric_stem(metric)}.svg"
    path.write_bytes(line_chart(series, title=title, x_label="step", y_label=y_label, bands=bands).encode("utf-8"))
    return path


# ---------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m svbench.train.curves RUN_DIR``: write the run's curves and print their paths."""
    parser = argparse.ArgumentParser(
        prog="python -m svbench.train.curves", description="Write learning-curve SVGs for a training run."
    )
    parser.add_argument("run_dir", type=Path, help="run directory holding the metrics file")
    parser.add_argument("--metrics-file", default="metrics.jsonl", help="file name inside RUN_DIR")
    args = parser.parse_args(argv)
    try:
        paths = write_run_curves(args.run_dir, args.metrics_file)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    if not paths:
        print(f"hint: no plottable metric in {args.run_dir / args.metrics_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
