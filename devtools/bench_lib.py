# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by make bench's report (devtools/bench.sh) and
devtools/results.py, over results.json's figures: {"median", "runs",
"spread"} dicts."""


def get(d, *keys):
    """d[k0][k1]..., or None where a key is missing."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def cell(x):
    """A figure as a table cell: its median and its spread."""
    if not x:
        return "-"
    return f"{x['median']:.0f} ({100 * x['spread']:.1f} %)"


def ratio(a, b, fmt="{:.2f}"):
    """The ratio of two figures' medians (or of two numbers), or "-"."""
    a = a.get("median") if isinstance(a, dict) else a
    b = b.get("median") if isinstance(b, dict) else b
    return fmt.format(a / b) if a is not None and b else "-"


def pct(x):
    """A percentage figure ({"median", "min", "max"}) as "M % (min to max)"."""
    if not x:
        return "-"
    return f"{x['median']:.2f} % ({x['min']:.2f} to {x['max']:.2f})"
