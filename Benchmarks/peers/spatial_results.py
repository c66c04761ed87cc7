"""Reading the JSON lines of run_w2.sh and run_w3.sh, whose engines may run several times.

Each engine prints one line per measurement and run. The scripts report, per measurement, the
median over runs of each run's median, and the peer / GeoSieve ratio of each run (runs of the
two engines alternate, so each ratio compares engines measured moments apart on a machine whose
speed drifts).
"""

import json
import statistics


def load(path):
    """Maps (engine, workload) to that measurement's lines, in run order."""
    runs = {}
    for line in open(path):
        if line.strip():
            record = json.loads(line)
            runs.setdefault((record["engine"], record["workload"]), []).append(record)
    return runs


def median_ms(lines):
    """The median over runs of the per-run median times."""
    return statistics.median(line["median_ms"] for line in lines)


def ratios(peer, own):
    """Peer time / own time, run by run."""
    return [p["median_ms"] / o["median_ms"] for p, o in zip(peer, own)]


def ratio_text(values):
    """The median ratio, with the range when there are several runs."""
    text = f"{statistics.median(values):.2f}x"
    if len(values) > 1:
        text += f" ({min(values):.2f}–{max(values):.2f})"
    return text
