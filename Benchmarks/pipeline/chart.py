"""Draws the pipeline benchmark's chart from its JSON: for each shape (its first run), the
deliveries the sandbox received per second and the ready messages of each work queue.

    chart.py pipeline.json pipeline.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

document = json.load(open(sys.argv[1]))
shapes = list(document["medians"])
figure, axes = plt.subplots(len(shapes), 2, figsize=(12, 3.2 * len(shapes)), squeeze=False)
for row, shape in zip(axes, shapes):
    run = next(r for r in document["runs"] if r["shape"] == shape)
    median = document["medians"][shape]
    rate = row[0]
    rate.plot(range(len(run["deliveredPerSecond"])), run["deliveredPerSecond"], color="tab:green")
    rate.set_title(f"{shape}: delivered/s (median {median['deliveriesPerSecond']:.0f}/s end to end, "
                   f"p99 {median['latencyMs']['99']:.0f} ms)", fontsize=9)
    rate.set_xlabel("s since the first request")
    rate.set_ylim(bottom=0)
    depth = row[1]
    for queue in run["queues"][0] if run["queues"] else []:
        if queue == "t":
            continue
        depth.plot([s["t"] for s in run["queues"]], [s[queue] for s in run["queues"]], label=queue)
    depth.set_title(f"{shape}: ready messages per queue", fontsize=9)
    depth.set_xlabel("s since the first request")
    depth.set_ylim(bottom=0)
    depth.legend(fontsize=7)
label = document.get("label") or ""
figure.suptitle(f"Herald pipeline on {document['cpus']} cores {label} ({document['at']})", fontsize=10)
figure.tight_layout()
figure.savefig(sys.argv[2], dpi=90)
