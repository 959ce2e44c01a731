#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# sched-frag-plot.py: plots GPU allocation against arriving demand for the
# placement policies (random, binpack, spread, frag), as Figure 7 of the
# FGD paper (ATC '23) does, from the curve that
# "tests/bench/sched-bench -t TRACEDIR -c CSV" writes.
#
#	python3 doc/sched-frag-plot.py doc/sched-frag-replay.csv \
#	    doc/sched-frag-replay.png
#
# Needs python3-matplotlib (Debian).  Not run by make or CI: the PNG in
# doc/ is committed with the CSV it was drawn from.
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: sched-frag-plot.py CURVE.csv OUT.png")
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    x = [float(r["arrived_pct"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, x, color="0.8", linestyle=":", label="demand")
    for name, style in (("frag", "-"), ("binpack", "--"), ("spread", "-."),
                        ("random", ":")):
        ax.plot(x, [float(r[name]) for r in rows], style, label=name)
    ax.set_xlim(min(x), max(x))
    ax.set_ylim(0, 100)
    ax.set_xlabel("arrived GPU demand (% of the cluster's GPUs)")
    ax.set_ylabel("GPUs allocated (%)")
    ax.set_title("Alibaba openb 2023 replay, 1,213 nodes, mean of 10 seeds")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
