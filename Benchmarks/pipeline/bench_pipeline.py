"""The pipeline benchmark's driver (run by scripts/bench-pipeline, which starts the stack).

Registers the benchmark's devices through the gateway, then runs each shape: drives the
gateway with wrk, samples the work queues' depths, waits until the sandbox has received every
accepted event's deliveries, and reads from the processes and the sandbox what it cost and how
long each delivery took. Writes one JSON document (every run and the medians) and a chart.

Figures:
- accepted/s: the gateway's 202 answers during the wrk run, over wrk's duration;
- deliveries/s: deliveries counted at the sandbox, over the time from the first request to
  the last delivery (the end-to-end figure: the drain after the load is included);
- latency: sandbox receipt time minus the send time written into each event id (wrk's clock,
  taken when the request is built), so it covers the gateway too;
- CPU ms per delivery: each process's user+system time over the shape, the broker's included;
- broker messages per delivery: every service's herald_amqp_published_total over the shape;
- the broker's ceiling: herald-messaging-bench's rate for one persistent, confirmed hop
  through a quorum queue, measured in the same run; the ratio compares deliveries/s with
  that ceiling divided by the messages each delivery costs.
"""
import argparse
import collections
import concurrent.futures
import http.client
import json
import os
import hashlib
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

import pika

GATEWAY = "http://127.0.0.1:8080"
SANDBOX = "http://127.0.0.1:8090"
METRICS_PORTS = {
    "herald-gateway": 9080, "herald-registration": 8081, "herald-preferences": 8082, "herald-encryption": 8083,
    "herald-fcm": 8084, "herald-hms": 8085, "herald-webhook": 8086, "herald-apns": 8087, "herald-callback": 8088, "herald-sandbox": 8090,
}


def metrics_port(name):
    """A service's metrics port; replica k of it (`herald-fcm-2`, scripts/run HERALD_REPLICAS)
    listens 100 * (k - 1) above."""
    if name in METRICS_PORTS:
        return METRICS_PORTS[name]
    base, _, k = name.rpartition("-")
    return METRICS_PORTS[base] + 100 * (int(k) - 1)


QUEUES = ["registration.events", "preferences.resolved", "encryption.allowed", "dispatch.fcm", "registration.outcomes"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The shapes: push-id prefix, how many push ids, devices per push id. `soloios` is solo's
# audience with every other device an iPhone (shape solo-ios): half the pushes go through APNs.
AUDIENCES = {"solo": (1000, 1), "group": (100, 20), "big": (1, 20000), "soloios": (1000, 1)}
# Each shape's audience, where it is not the shape's own name.
SHAPE_AUDIENCE = {"solo-ios": "soloios"}


def steady_rate(shape, default):
    """The pace of a steady shape in events/s: `steady` at --steady-rate, `steady<N>` at N
    (`steady2000`); None for a shape that goes as fast as it can."""
    if not shape.startswith("steady"):
        return None
    suffix = shape[len("steady"):]
    return int(suffix) if suffix else default


def audience(shape):
    return "solo" if shape.startswith("steady") else SHAPE_AUDIENCE.get(shape, shape)


def log(text):
    print(text, file=sys.stderr, flush=True)


def get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read().decode()


def metric(text, name, **labels):
    """The sum of the samples of `name` whose labels include `labels`."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        head, _, value = line.rpartition(" ")
        if all(f'{k}="{v}"' in head for k, v in labels.items()):
            total += float(value)
    return total


def scrape(name):
    try:
        return get(f"http://127.0.0.1:{metrics_port(name)}/metrics", timeout=10)
    except OSError:
        return ""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Processes:
    """The services (pid files of scripts/run) and the broker's Erlang VM."""

    def __init__(self, run_dir):
        self.pids = {}
        for name in sorted(os.listdir(os.path.join(run_dir, "pids"))):
            base = name.rpartition("-")[0] if name[-1].isdigit() else name
            if base in METRICS_PORTS:
                self.pids[name] = int(open(os.path.join(run_dir, "pids", name)).read().strip())
        beam = subprocess.run(["pgrep", "-f", "beam.smp"], capture_output=True, text=True).stdout.split()
        if beam:
            self.pids["rabbitmq"] = int(beam[0])

    def cpu(self):
        return {name: cpu_seconds(pid) for name, pid in self.pids.items()}

    def rss_mib(self, field="VmRSS"):
        """Each process's resident memory in MiB; field="RssAnon" for its anonymous part only
        (the heap, without the mapped executable and files)."""
        sizes = {}
        for name, pid in self.pids.items():
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith(f"{field}:"):
                        sizes[name] = int(line.split()[1]) / 1024
        return sizes


def sandbox_delivered():
    """The sends the sandbox has delivered since it started, every provider's (its own counters)."""
    return metric(scrape("herald-sandbox"), "herald_sandbox_requests_total", endpoint="send", outcome="delivered")


def ready_counts(channel, queues):
    """Ready messages of each queue (a passive declare each: cheap)."""
    return {queue: channel.queue_declare(queue, passive=True).method.message_count for queue in queues}


class QueueSampler(threading.Thread):
    """Ready messages of the work queues every half second (passive declares: cheap). While
    the broker does not answer (the resilience benchmark restarts it) a sample has only its
    time, and the sampler connects again."""

    def __init__(self, amqp_url, queues=None):
        super().__init__(daemon=True)
        self.queues = queues or QUEUES
        self.parameters = pika.URLParameters(amqp_url)
        self.connection = pika.BlockingConnection(self.parameters)
        self.channel = self.connection.channel()
        self.samples = []
        self.stopping = threading.Event()

    def run(self):
        started = time.time()
        while not self.stopping.is_set():
            row = {"t": round(time.time() - started, 2)}
            try:
                if self.channel is None:
                    self.connection = pika.BlockingConnection(self.parameters)
                    self.channel = self.connection.channel()
                row.update(ready_counts(self.channel, self.queues))
            except pika.exceptions.AMQPError:
                self.channel = None
            self.samples.append(row)
            self.stopping.wait(0.5)

    def stop(self):
        self.stopping.set()
        self.join()
        try:
            self.connection.close()
        except pika.exceptions.AMQPError:
            pass
        return self.samples


def register_devices(api_key, run, audiences, app="demo", platform="fcm"):
    """Registers every benchmark device through the gateway: Smart ID device registrations
    (Android, so FCM; in an app in webhook mode, forwarded instead), with `platform="apns"`
    Smart ID iPhones (`OS: iOS`, an APNs token: the demo app has an apns section), or with
    `platform="hms"` Huawei phones (`PUT /devices/{id}` with the push id). In audience
    `soloios` every other device is an iPhone."""
    jobs = []
    for prefix, (ids, per_id) in audiences.items():
        for i in range(ids):
            for d in range(per_id):
                jobs.append((f"{run}-{prefix}-{i}", f"{run}-{prefix}-{i}-{d}"))
    local = threading.local()

    def request(push_id, token):
        iphone = platform == "apns" or (push_id.split("-")[-2] == "soloios" and int(push_id.split("-")[-1]) % 2 == 1)
        if iphone:
            # An APNs device token is hex: 32 bytes derived from the benchmark's name for it.
            device = hashlib.sha256(token.encode()).hexdigest()
            return "POST", f"/v1/apps/{app}/smartid/devices", json.dumps({"profileID": [push_id], "OS": "iOS", "deviceID": device})
        if platform == "hms":
            body = {"platform": "hms", "token": token, "os": "android", "pushIds": [push_id]}
            return "PUT", f"/v1/apps/{app}/devices/{token}", json.dumps(body)
        return "POST", f"/v1/apps/{app}/smartid/devices", json.dumps({"profileID": [push_id], "OS": "Android", "deviceID": token})

    def register(job):
        push_id, token = job
        if not hasattr(local, "connection"):
            local.connection = http.client.HTTPConnection("127.0.0.1", 8080, timeout=30)
        method, path, body = request(push_id, token)
        for attempt in range(5):
            try:
                local.connection.request(method, path, body,
                                         {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"})
                answer = local.connection.getresponse()
                answer.read()
                if answer.status < 300:
                    return
                if answer.status != 503:
                    raise RuntimeError(f"registering {token}: HTTP {answer.status}")
            except (OSError, http.client.HTTPException):
                local.connection = http.client.HTTPConnection("127.0.0.1", 8080, timeout=30)
            time.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"registering {token} failed 5 times")

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(register, jobs, chunksize=64))
    log(f"registered {len(jobs)} devices of {app} ({platform}) in {time.time() - started:.1f} s")


def sandbox_receipts(run, provider="fcm"):
    """(received at, Unix ms; the message id) of every push the sandbox accepted for
    `provider` (fcm, hms, apns, or webhook: the receiver's accepted forwards; empty: any)
    whose message id belongs to `run`, oldest first."""
    receipts = []
    for line in get(f"{SANDBOX}/sandbox/receipts?provider={provider}", timeout=120).splitlines():
        millis, _, event = line.split(" ", 2)
        event = event.split(":", 1)[-1]  # the gateway's event id is "<source>:<messageId>"
        if event.startswith(run + "-"):
            receipts.append((int(millis), event))
    return receipts


def wrk_command(api_key, run, prefix, ids, seconds, connections, rate, app="demo"):
    """wrk sending Smart ID pushes of `app` to `ids` push ids `<prefix><n>` for `seconds`, at
    `rate` events/s in all (0: as fast as the connections allow)."""
    threads = 2
    per_thread = rate / threads if rate else 0
    return ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "10s",
            "-s", "Benchmarks/pipeline/push.lua", GATEWAY, "--",
            f"/v1/apps/{app}/smartid/push", api_key, run, prefix, str(ids), str(per_thread)]


def wrk(api_key, run, prefix, ids, seconds, connections, rate, app="demo"):
    command = wrk_command(api_key, run, prefix, ids, seconds, connections, rate, app)
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, int(round(p / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def run_shape(args, processes, shape, base, run):
    """One run of one shape; returns its figures."""
    gateway_before = scrape("herald-gateway")
    sandbox_before = sandbox_delivered()
    published_before = {name: metric(scrape(name), "herald_amqp_published_total") for name in processes.pids if name != "rabbitmq"}
    cpu_before = processes.cpu()
    sampler = QueueSampler(args.amqp_url)
    sampler.start()
    started = time.time()
    if shape == "big":
        prefix, (ids, per_id) = "big", AUDIENCES["big"]
        body = json.dumps({"messageId": f"{run}-0-{int(started * 1000)}-1", "pushId": f"{base}-big-0",
                           "requestor": "Bench", "type": "AUTH", "timeToLive": 300})
        request = urllib.request.Request(f"{GATEWAY}/v1/apps/demo/smartid/push", body.encode(), method="POST",
                                         headers={"Authorization": f"Bearer {args.api_key}", "Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=30).read()
        load = {"requests": 1, "failed": 0, "seconds": time.time() - started}
    else:
        prefix = audience(shape)
        ids, per_id = AUDIENCES[prefix]
        paced = steady_rate(shape, args.steady_rate)
        seconds = args.steady_seconds if paced else args.seconds
        rate = paced or 0
        # About 31 events/s per connection, as the 1,000 events/s shape has always had.
        connections = max(32, round(32 * rate / 1000)) if paced else args.connections
        load = wrk(args.api_key, run, f"{base}-{prefix}-", ids, seconds, connections, rate)
    loaded = time.time()
    accepted = metric(scrape("herald-gateway"), "herald_gateway_requests_total", endpoint="smartIDPush", status="202") \
        - metric(gateway_before, "herald_gateway_requests_total", endpoint="smartIDPush", status="202")
    expected = int(accepted) * per_id
    deadline = loaded + args.drain_timeout
    delivered = 0
    while True:
        delivered = sandbox_delivered() - sandbox_before
        if delivered >= expected or time.time() > deadline:
            break
        time.sleep(0.2)
    cpu_after = processes.cpu()
    samples = sampler.stop()
    published_by = {name: metric(scrape(name), "herald_amqp_published_total") - before for name, before in published_before.items()}
    published = sum(published_by.values())
    # (received, sent): the send time is written into each event id.
    receipts = [(received, int(event.split("-")[-2])) for received, event in sandbox_receipts(run, provider="")]
    # Each shape starts with an empty sandbox inbox: the sandbox keeps every request it
    # accepted, and hundreds of thousands of them slow it down (a harness artifact).
    urllib.request.urlopen(urllib.request.Request(f"{SANDBOX}/sandbox/messages", method="DELETE"), timeout=60).read()
    latencies = sorted(received - sent for received, sent in receipts)
    last = max((received for received, _ in receipts), default=int(time.time() * 1000)) / 1000
    elapsed = max(last - started, 1e-3)
    per_second = {}
    latency_by_second = {}
    for received, sent in receipts:
        second = int(received / 1000 - started)
        per_second[second] = per_second.get(second, 0) + 1
        latency_by_second.setdefault(second, []).append(received - sent)
    result = {
        "shape": shape, "run": run,
        "accepted": int(accepted), "expected": expected, "delivered": int(delivered), "receipts": len(receipts),
        "loadSeconds": round(load["seconds"], 2), "elapsedSeconds": round(elapsed, 2),
        "acceptedPerSecond": round(accepted / max(load["seconds"], 1e-3), 1),
        "deliveriesPerSecond": round(delivered / elapsed, 1),
        "latencyMs": {p: percentile(latencies, float(p)) for p in ("50", "99", "99.9")},
        "cpuMsPerDelivery": {name: round(1000 * (cpu_after[name] - cpu_before[name]) / max(delivered, 1), 3) for name in cpu_after},
        "brokerMessagesPerDelivery": round(published / max(delivered, 1), 2),
        "brokerMessagesPerDeliveryByProcess": {name: round(count / max(delivered, 1), 3) for name, count in published_by.items() if count},
        "gatewayRequests": load,
        "queues": samples,
        "deliveredPerSecond": [per_second.get(s, 0) for s in range(int(elapsed) + 1)],
        "latencyP99MsBySecond": [percentile(sorted(latency_by_second.get(s, [])), 99.0) for s in range(int(elapsed) + 1)],
        "rssMiB": {name: round(size, 1) for name, size in processes.rss_mib().items()},
    }
    result["cpuMsPerDelivery"]["total"] = round(sum(result["cpuMsPerDelivery"].values()), 3)
    if delivered < expected:
        result["lost"] = expected - int(delivered)
        log(f"  {shape}: only {int(delivered)} of {expected} deliveries arrived within {args.drain_timeout} s")
    return result


def broker_ceiling(bin_dir, messages):
    output = subprocess.run([os.path.join(bin_dir, "herald-messaging-bench"), str(messages), "bench.pipeline-ceiling"],
                            capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])["msgPerSec"]


def summary(results, ceiling):
    medians = {}
    for shape in dict.fromkeys(r["shape"] for r in results):
        runs = [r for r in results if r["shape"] == shape]
        median = lambda f: round(statistics.median(f(r) for r in runs), 3)
        hops = median(lambda r: r["brokerMessagesPerDelivery"])
        deliveries = median(lambda r: r["deliveriesPerSecond"])
        medians[shape] = {
            "runs": len(runs),
            "acceptedPerSecond": median(lambda r: r["acceptedPerSecond"]),
            "deliveriesPerSecond": deliveries,
            "latencyMs": {p: median(lambda r: r["latencyMs"][p] or 0) for p in ("50", "99", "99.9")},
            "cpuMsPerDelivery": {name: median(lambda r: r["cpuMsPerDelivery"].get(name, 0)) for name in runs[0]["cpuMsPerDelivery"]},
            "brokerMessagesPerDelivery": hops,
            "ratioToBrokerCeiling": round(deliveries / (ceiling / hops), 3) if hops else None,
            "lost": sum(r.get("lost", 0) for r in runs),
        }
    return medians


def print_table(medians, ceiling):
    print(f"broker ceiling (one persistent confirmed hop): {ceiling:.0f} msg/s")
    print(f"{'shape':10} {'accepted/s':>10} {'deliv/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'p99.9':>7} {'msgs/deliv':>10} {'ratio':>6} {'CPU ms/deliv':>12}")
    for shape, m in medians.items():
        print(f"{shape:10} {m['acceptedPerSecond']:>10.0f} {m['deliveriesPerSecond']:>9.0f} {m['latencyMs']['50']:>7.0f} "
              f"{m['latencyMs']['99']:>7.0f} {m['latencyMs']['99.9']:>7.0f} {m['brokerMessagesPerDelivery']:>10.2f} "
              f"{m['ratioToBrokerCeiling'] or 0:>6.2f} {m['cpuMsPerDelivery']['total']:>12.3f}")
    print("CPU ms per delivery by process (medians):")
    for shape, m in medians.items():
        parts = ", ".join(f"{name.removeprefix('herald-')} {value:.3f}" for name, value in m["cpuMsPerDelivery"].items() if name != "total")
        print(f"  {shape}: {parts}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--amqp-url", default="amqp://guest:guest@127.0.0.1:5672/")
    parser.add_argument("--shapes", default="solo,group,big,steady")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--steady-rate", type=int, default=1000)
    parser.add_argument("--steady-seconds", type=int, default=60)
    parser.add_argument("--drain-timeout", type=int, default=300)
    parser.add_argument("--ceiling-messages", type=int, default=50000)
    parser.add_argument("--output", required=True)
    parser.add_argument("--label", default="")
    parser.add_argument("--count-webhooks", default="", help="a sandbox receiver's name: how many requests it answered goes in the document")
    args = parser.parse_args()

    processes = Processes(args.run_dir)
    run = f"b{int(time.time()) % 100000000:08d}"
    shapes = args.shapes.split(",")
    needed = {audience(s) for s in shapes}
    register_devices(args.api_key, run, {k: v for k, v in AUDIENCES.items() if k in needed})
    ceiling = broker_ceiling(args.bin_dir, args.ceiling_messages)
    log(f"broker ceiling: {ceiling:.0f} msg/s")
    results = []
    for round_ in range(1, args.rounds + 1):
        for shape in shapes:
            result = run_shape(args, processes, shape, run, f"{run}r{round_}{shape[0]}")
            results.append(result)
            log(f"round {round_} {shape}: accepted {result['acceptedPerSecond']:.0f}/s, delivered {result['deliveriesPerSecond']:.0f}/s, "
                f"p50 {result['latencyMs']['50']} ms, p99 {result['latencyMs']['99']} ms, "
                f"{result['brokerMessagesPerDelivery']} broker msgs and {result['cpuMsPerDelivery']['total']} CPU ms per delivery")
    medians = summary(results, ceiling)
    document = {"label": args.label, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(),
                "brokerCeilingMsgPerSecond": round(ceiling), "medians": medians, "runs": results}
    if args.count_webhooks:
        # The requests the receiver answered (status and all), for a callbacks run.
        with urllib.request.urlopen(f"{SANDBOX}/sandbox/webhooks?name={args.count_webhooks}", timeout=600) as answer:
            received = json.load(answer)["webhooks"]
        document["webhooks"] = {"name": args.count_webhooks, "received": len(received),
                                "statuses": dict(collections.Counter(str(w["status"]) for w in received))}
        log(f"the receiver {args.count_webhooks} answered {len(received)} requests: {document['webhooks']['statuses']}")
    with open(args.output, "w") as out:
        json.dump(document, out, indent=1)
    print_table(medians, ceiling)


if __name__ == "__main__":
    main()
