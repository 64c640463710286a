"""The resilience benchmark (a benchmark, not a test): faults under a steady load, through the
whole release stack (scripts/run up) to the provider sandbox, with the pipeline benchmark's
harness (Benchmarks/pipeline/bench_pipeline.py: device registration, wrk pacing, queue
sampling, the sandbox's receipts).

Each scenario sends Smart ID pushes at RATE events/s (one device each) for SECONDS, starts its
fault FAULT_AT seconds in and ends it FAULT_SECONDS later, then waits until the sandbox has a
push for every accepted event (or DRAIN_TIMEOUT). It reports accepted events, deliveries
expected, delivered (distinct events at the sandbox), lost (must be 0), duplicates (pushes
beyond one per event), the time to drain after the fault ended, delivered/s and the work
queues' depth over time, and each process's resident memory at the end. The time to drain is from the fault's end to the
arrival of the last event sent before it ended.

Scenarios so far: provider-outage (the sandbox answers 503 to every FCM and Push Kit send for
the fault's duration, with Retry-After: 1) and kill-<service> (kill -9 of the gateway,
registration, preferences, encryption and each dispatcher, started again after 5 s). The
others of the resilience issue (429 with Retry-After, a broker restart, a full disk, memory
after 10^6 deliveries) are still to come.
"""
import argparse
import json
import os
import sys
import subprocess
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pipeline"))
import bench_pipeline as pipeline  # noqa: E402


def sandbox(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{pipeline.SANDBOX}{path}", data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
    return urllib.request.urlopen(request, timeout=60).read()


class ProviderOutage:
    """FCM and Push Kit answer 503 (Retry-After: 1) to every send while it lasts."""
    name = "provider-outage"

    def start(self, seconds):
        sandbox("PUT", "/sandbox/faults", {"outageSeconds": seconds})

    def end(self):
        sandbox("DELETE", "/sandbox/faults")


class Kill:
    """`kill -9` of one service (no shutdown, nothing acknowledged), started again after the
    fault's seconds (5 for these scenarios) by `scripts/run start-one`."""
    seconds = 5

    def __init__(self, service):
        self.service = service
        self.name = f"kill-{service.removeprefix('herald-')}"

    def start(self, seconds):
        with open(os.path.join(RUN_DIR, "pids", self.service)) as pid:
            os.kill(int(pid.read().strip()), 9)

    def end(self):
        subprocess.run(["scripts/run", "start-one", self.service], env={**os.environ, "HERALD_RUN_DIR": RUN_DIR},
                       check=True, capture_output=True, text=True)


RUN_DIR = ""
SCENARIOS = {scenario.name: scenario for scenario in [ProviderOutage()] + [
    Kill(f"herald-{name}") for name in ("gateway", "registration", "preferences", "encryption", "fcm", "hms", "webhook")]}


def receipts_of(run):
    """The arrival times (Unix ms) of every push the sandbox accepted for this run, by event id."""
    by_event = {}
    for millis, event in pipeline.sandbox_receipts(run):
        by_event.setdefault(event, []).append(millis)
    return by_event


def run_scenario(args, processes, scenario, base, run):
    sampler = pipeline.QueueSampler(args.amqp_url)
    sampler.start()
    started = time.time()
    fault = {}

    fault_seconds = getattr(scenario, "seconds", args.fault_seconds)

    def inject():
        time.sleep(args.fault_at)
        fault["start"] = time.time()
        scenario.start(fault_seconds)
        time.sleep(fault_seconds)
        scenario.end()
        fault["end"] = time.time()

    injector = threading.Thread(target=inject, daemon=True)
    injector.start()
    ids, _ = pipeline.AUDIENCES["solo"]
    load = pipeline.wrk(args.api_key, run, f"{base}-solo-", ids, args.seconds, 32, args.rate)
    injector.join()
    # Accepted: the 202s the client received (wrk's answers; the gateway's own counter
    # starts again when the gateway is the service killed).
    accepted = int(load["requests"] - load["non2xx"])
    deadline = time.time() + args.drain_timeout
    while True:
        receipts = receipts_of(run)
        if len(receipts) >= accepted or time.time() > deadline:
            break
        time.sleep(1)
    samples = sampler.stop()
    pushes = sum(len(times) for times in receipts.values())
    last = max((max(times) for times in receipts.values()), default=int(time.time() * 1000)) / 1000
    per_second = {}
    for times in receipts.values():
        for received in times:
            second = int(received / 1000 - started)
            per_second[second] = per_second.get(second, 0) + 1
    sandbox("DELETE", "/sandbox/messages")
    return {
        "scenario": scenario.name, "run": run, "rate": args.rate, "loadSeconds": round(load["seconds"], 2),
        "faultFromSecond": round(fault["start"] - started, 1), "faultToSecond": round(fault["end"] - started, 1),
        "accepted": accepted, "expected": accepted, "delivered": len(receipts), "lost": max(0, accepted - len(receipts)),
        "duplicates": pushes - len(receipts),
        # The backlog of the fault is gone once every event sent before the fault ended has
        # arrived: the last such arrival, after the fault's end.
        "drainSecondsAfterFault": round(max(0.0, max((max(times) for event, times in receipts.items()
                                                      if int(event.split("-")[-2]) <= fault["end"] * 1000), default=0) / 1000 - fault["end"]), 1),
        "deliveredPerSecond": [per_second.get(s, 0) for s in range(0, int(last - started) + 1)],
        "queueDepth": samples,
        "residentMiB": {name: round(size, 1) for name, size in pipeline.Processes(args.run_dir).rss_mib().items()},
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--amqp-url", default="amqp://guest:guest@127.0.0.1:5672/")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--fault-at", type=int, default=15)
    parser.add_argument("--fault-seconds", type=int, default=30)
    parser.add_argument("--drain-timeout", type=int, default=600)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    global RUN_DIR
    RUN_DIR = args.run_dir
    processes = None
    run = f"r{int(time.time()) % 100000000:08d}"
    pipeline.register_devices(args.api_key, run, {"solo": pipeline.AUDIENCES["solo"]})
    results = []
    for index, name in enumerate(args.scenarios.split(",")):
        result = run_scenario(args, processes, SCENARIOS[name], run, f"{run}s{index}")
        results.append(result)
        pipeline.log(f"{name}: accepted {result['accepted']}, delivered {result['delivered']}, lost {result['lost']}, "
                     f"duplicates {result['duplicates']}, drained {result['drainSecondsAfterFault']} s after the fault "
                     f"(fault from {result['faultFromSecond']} s to {result['faultToSecond']} s)")
    document = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(), "scenarios": results}
    with open(args.output, "w") as out:
        json.dump(document, out, indent=1)


if __name__ == "__main__":
    main()
