"""Draws the resilience benchmark's charts from its JSON, into a folder: for each fault
(`<scenario>.png`), the deliveries the sandbox received per second and the ready messages of
each work queue, with the fault shaded; for the memory scenario (`memory.png`), each
process's resident memory against the deliveries so far; for the soak (`soak.png`, or
`soak-postgres.png` when its stores were on PostgreSQL), memory and pushes each minute.

    chart.py resilience.json docs/resilience
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

document = json.load(open(sys.argv[1]))
folder = sys.argv[2]
os.makedirs(folder, exist_ok=True)
for result in document["scenarios"]:
    name = result["scenario"]
    if "skipped" in result:
        continue
    if name == "soak":
        sized = [sample for sample in result["memory"] if sample.get("storeBytes")]
        if sized:
            figure, (resident, rate, store) = plt.subplots(1, 3, figsize=(19, 4))
        else:
            figure, (resident, rate) = plt.subplots(1, 2, figsize=(13, 4))
        series = [sample for sample in result["memory"] if "error" not in sample["residentMiB"]]
        # The sandbox is the test double: it keeps every push it received, so it grows by design
        # and would flatten Herald's own lines; its figures stay in the JSON.
        for process in sorted({p for sample in series for p in sample["residentMiB"]} - {"herald-sandbox"}):
            points = [(sample["t"] / 60, sample["residentMiB"][process]) for sample in series if process in sample["residentMiB"]]
            resident.plot([p[0] for p in points], [p[1] for p in points], label=process)
        resident.set_ylabel("resident MiB")
        resident.legend(fontsize=7, ncol=3)
        stores = "PostgreSQL" if document.get("stores") == "postgresql" else "SQLite"
        resident.set_title(f"soak ({stores} stores): resident memory each minute, Herald and RabbitMQ\n({result['rate']} events/s, "
                           f"a fault every {result['faultEvery']} s)", fontsize=9)
        counted = [sample for sample in result["memory"] if sample.get("delivered") is not None]
        per_minute = [(b["t"] / 60, (b["delivered"] - a["delivered"]) / max(1, b["t"] - a["t"])) for a, b in zip(counted, counted[1:])]
        rate.plot([p[0] for p in per_minute], [p[1] for p in per_minute], color="tab:green")
        if per_minute:  # room above: a steady rate would otherwise run along the frame's top edge
            rate.set_ylim(0, max(p[1] for p in per_minute) * 1.2)
        rate.set_title(f"soak: provider pushes/s at the sandbox\n(accepted {result['accepted']:,}, counted short {result['lost']}, "
                       f"pushed twice {result['duplicates']}, dead-lettered {result['deadLettered']})", fontsize=9)
        axes = [resident, rate]
        if sized:
            for part in sorted({part for sample in sized for part in sample["storeBytes"]}):
                points = [(sample["t"] / 60, sample["storeBytes"][part] / 2**20) for sample in sized if sample["storeBytes"].get(part) is not None]
                store.plot([p[0] for p in points], [p[1] for p in points], label=part)
            steady = (result.get("storeAfterRetention") or {})
            steady = steady.get("total") or steady.get("postgres")
            if steady:
                # The band the soak asks the store to stay in once retention bites: 10 % either side.
                first = steady["firstBytes"] / 2**20
                store.axhspan(first * 0.9, first * 1.1, xmin=0, xmax=1, color="tab:gray", alpha=0.15,
                              label=f"±10 % of the size at minute {steady['fromSecond'] / 60:.0f} (largest change {steady['largestChangePercent']} %)")
            store.set_ylabel("MiB")
            store.legend(fontsize=7)
            retention = (result.get("retention") or "default retention").replace(" ", "\n")
            store.set_title(f"soak: Registration's store each minute\n{retention}", fontsize=8)
            axes.append(store)
        for axis in axes:
            for fault in result["faults"]:
                axis.axvline(fault["fromSecond"] / 60, color="tab:red", alpha=0.3)
            axis.set_xlabel("minutes (a red line: a fault)")
            axis.set_ylim(bottom=0)
    elif name == "memory":
        figure, axis = plt.subplots(figsize=(10, 4))
        series = result["series"]
        for process in sorted(series[-1]["residentMiB"]):
            points = [(s["delivered"], s["residentMiB"][process]) for s in series if process in s["residentMiB"]]
            axis.plot([p[0] for p in points], [p[1] for p in points], label=process)
        axis.set_xscale("symlog", linthresh=10_000)
        axis.set_xlabel("deliveries so far (counted at the sandbox)")
        axis.set_ylabel("resident MiB")
        axis.set_ylim(bottom=0)
        axis.legend(fontsize=7, ncol=3)
        axis.set_title(f"resident memory over {result['delivered']:,} deliveries "
                       f"({result['rate']} events/s, {result['devicesPerEvent']} devices each)", fontsize=9)
    else:
        figure, (rate, depth) = plt.subplots(1, 2, figsize=(12, 3.4))
        rate.plot(range(len(result["deliveredPerSecond"])), result["deliveredPerSecond"], color="tab:green")
        rate.set_title(f"{name}: delivered/s (lost {result['lost']}, duplicates {result['duplicates']}, "
                       f"drained {result['drainSecondsAfterFault']} s after)", fontsize=9)
        depth_samples = result["queueDepth"]
        for queue in sorted({key for sample in depth_samples for key in sample} - {"t"}):
            depth.plot([s["t"] for s in depth_samples], [s.get(queue) for s in depth_samples], label=queue)
        depth.set_title(f"{name}: ready messages per work queue", fontsize=9)
        depth.legend(fontsize=7)
        for axis in (rate, depth):
            axis.axvspan(result["faultFromSecond"], max(result["faultToSecond"], result["faultFromSecond"] + 0.5), color="tab:red", alpha=0.15)
            axis.set_xlabel("s since the load started (fault shaded)")
            axis.set_ylim(bottom=0)
    figure.tight_layout()
    # A soak on PostgreSQL has a chart of its own beside the SQLite one.
    stem = f"{name}-postgres" if name == "soak" and document.get("stores") == "postgresql" else name
    figure.savefig(os.path.join(folder, f"{stem}.png"), dpi=80)
    plt.close(figure)
