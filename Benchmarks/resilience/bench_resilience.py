"""The resilience benchmark (a benchmark, not a test): faults under a steady load, through the
whole release stack (scripts/run up) to the provider sandbox, with the pipeline benchmark's
harness (Benchmarks/pipeline/bench_pipeline.py: device registration, wrk pacing, queue
sampling, the sandbox's receipts).

Each fault scenario sends Smart ID pushes at RATE events/s (one device each) for SECONDS to
the dispatchers it concerns (Loads: FCM devices; a third each FCM, Huawei devices through Push
Kit and iPhones through APNs for the provider faults; only Huawei devices when the Push Kit
dispatcher is killed, only iPhones when the APNs dispatcher is, and an app in webhook mode
when the webhook dispatcher is),
starts its fault FAULT_AT seconds in and ends it after the fault's duration, then waits until
the sandbox has a push for every accepted event (or DRAIN_TIMEOUT). It reports accepted
events, deliveries expected, delivered (distinct events at the sandbox), lost (must be 0),
duplicates (pushes beyond one per event), messages dead-lettered during it, the time to drain
after the fault ended (from the fault's end to the arrival of the last event sent before it
ended), the longest any accepted event waited from its request to its push, delivered/s and
the work queues' depth over time, and each process's resident memory at the end.

Faults: provider-outage (the sandbox answers 503 to every FCM, Push Kit and APNs send for 30 s, with
Retry-After: 1), provider-429 (429 with Retry-After: 5 for 30 s), broker-restart (the RabbitMQ
node stopped and started again on its data), kill-<service> (kill -9 of the gateway,
registration, preferences, encryption and each dispatcher under its own load, started again
after 5 s) and
disk-full (the SQLite stores' file system, a tmpfs scripts/bench-resilience mounts on the
run's data folder, filled for 10 s) and postgres-restart (with --postgres: the stores'
PostgreSQL server stopped as by a crash and started again after 10 s).

The memory scenario sends group pushes (20 devices each, 175 events/s: 3,500 deliveries/s,
below what the pipeline sustains, so no backlog grows) until the sandbox has counted
MEMORY_DELIVERIES deliveries, sampling each process's resident memory, and reports it after
10^4 and after MEMORY_DELIVERIES deliveries. Every scenario starts once the queues are empty.
"""
import argparse
import json
import os
import shlex
import sys
import subprocess
import threading
import time
import urllib.request

import pika

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pipeline"))
import bench_pipeline as pipeline  # noqa: E402


def sandbox(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{pipeline.SANDBOX}{path}", data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
    return urllib.request.urlopen(request, timeout=60).read()


class Load:
    """Where a scenario's Smart ID pushes go and where the sandbox counts them: one device per
    push id, of `app`, sent through `platform`'s dispatcher. The FCM load is the pipeline
    benchmark's solo audience; the Push Kit load registers Huawei phones; the APNs load
    registers iPhones through Smart ID (`OS: iOS`, APNs tokens); the webhook load is
    app demo-chat, in webhook mode, whose every delivery is forwarded to the sandbox's
    receiver `demo-chat` instead of pushed."""

    def __init__(self, platform, app, audience, key_file=None):
        self.platform, self.app, self.audience, self.key_file = platform, app, audience, key_file

    def api_key(self, args):
        if self.key_file is None:
            return args.api_key
        with open(os.path.join(args.run_dir, self.key_file)) as key:
            return key.read().strip()

    def register(self, args, run):
        pipeline.register_devices(self.api_key(args), run, {self.audience: (pipeline.AUDIENCES["solo"][0], 1)},
                                  app=self.app, platform=self.platform if self.platform in ("hms", "apns") else "fcm")

    def queues(self):
        """The work queues its events cross, and its dispatcher's retry tiers."""
        return [queue.replace("dispatch.fcm", f"dispatch.{self.platform}") for queue in pipeline.QUEUES] + self.retry_queues()

    def retry_queues(self):
        return [f"retry.{self.platform}.{tier}" for tier in RETRY_TIERS]

    def receipts(self, run):
        """(received at, Unix ms; the message id) of every push or accepted forward of `run`."""
        return pipeline.sandbox_receipts(run, provider=self.platform)

    def clear(self):
        sandbox("DELETE", "/sandbox/webhooks" if self.platform == "webhook" else "/sandbox/messages")


# The retry tiers' labels (HeraldTopology.retryTiers), the same for every dispatcher.
RETRY_TIERS = ("1s", "2s", "4s", "8s", "15s", "30s", "1m", "2m", "5m", "10m", "20m")
LOADS = {"fcm": Load("fcm", "demo", "solo"), "hms": Load("hms", "demo", "hms"), "apns": Load("apns", "demo", "ios"),
         "webhook": Load("webhook", "demo-chat", "hook", key_file="demo-chat-api-key")}


class ProviderOutage:
    """FCM, Push Kit and APNs answer 503 (Retry-After: 1) to every send while it lasts; the
    load is a third each FCM devices, Huawei devices and iPhones."""
    name = "provider-outage"
    loads = ["fcm", "hms", "apns"]

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
        # A dispatcher is killed while it has work: the load goes to its own devices.
        self.loads = [{"herald-hms": "hms", "herald-apns": "apns", "herald-webhook": "webhook"}.get(service, "fcm")]

    def start(self, seconds):
        with open(os.path.join(RUN_DIR, "pids", self.service)) as pid:
            os.kill(int(pid.read().strip()), 9)

    def end(self):
        subprocess.run(["scripts/run", "start-one", self.service], env={**os.environ, "HERALD_RUN_DIR": RUN_DIR},
                       check=True, capture_output=True, text=True)


class ProviderThrottle:
    """FCM, Push Kit and APNs answer 429 (over quota) with `Retry-After: 5` to every send
    while it lasts; the load is a third each FCM devices, Huawei devices and iPhones."""
    name = "provider-429"
    loads = ["fcm", "hms", "apns"]
    retry_after = 5

    def start(self, seconds):
        sandbox("PUT", "/sandbox/faults", {"throttleSeconds": seconds, "retryAfterSeconds": self.retry_after})

    def end(self):
        sandbox("DELETE", "/sandbox/faults")


def broker_shell(command):
    """A command with scripts/lib/broker.sh's functions; its output."""
    return subprocess.run(["bash", "-c", f". scripts/lib/broker.sh; {command}"], check=True,
                          capture_output=True, text=True).stdout.strip()


class BrokerRestart:
    """The RabbitMQ node stopped (`rabbitmqctl stop`: connections closed, the VM ended) and
    started again at once on its data; the fault lasts until it serves again."""
    name = "broker-restart"
    seconds = 0

    def start(self, seconds):
        self.dir = broker_shell("broker_dir")
        broker_shell("as_root rabbitmqctl -q stop")

    def end(self):
        broker_shell(f"start_node_and_wait {shlex.quote(self.dir)}")


class DiskFull:
    """The file system of the services' data folders (Registration's and Preferences' SQLite
    files), a tmpfs that scripts/bench-resilience mounts, filled for 10 s: fallocate takes
    what is free, dd the last blocks."""
    name = "disk-full"
    seconds = 10

    def available(self):
        if not DATA_DIR or not os.path.ismount(DATA_DIR):
            return "the data folder is not a mount of its own (scripts/bench-resilience mounts a tmpfs when run as root)"
        return None

    def free_bytes(self):
        stat = os.statvfs(DATA_DIR)
        return stat.f_bavail * stat.f_frsize

    def start(self, seconds):
        self.fillers = [os.path.join(DATA_DIR, "filler"), os.path.join(DATA_DIR, "filler-rest")]
        # Best effort: tmpfs may refuse one allocation of nearly all of it (an 8 GiB one
        # did); dd then writes what is left until the file system says it is full.
        subprocess.run(["fallocate", "-l", str(max(0, self.free_bytes() - (64 << 20))), self.fillers[0]], capture_output=True)
        subprocess.run(["dd", "if=/dev/zero", f"of={self.fillers[1]}", "bs=1M"], capture_output=True)
        subprocess.run(["dd", "if=/dev/zero", f"of={self.fillers[1]}-last", "bs=4096"], capture_output=True)
        self.fillers.append(f"{self.fillers[1]}-last")
        self.free_during = self.free_bytes()

    def end(self):
        for filler in self.fillers:
            if os.path.exists(filler):
                os.remove(filler)


class PostgresRestart:
    """The PostgreSQL server of Registration's and Preferences' stores stopped as by a crash
    (`pg_ctl stop -m immediate`: no checkpoint, every connection cut) and started again after
    10 s on its data, with the options it had (recovery replays its write-ahead log). Only
    when scripts/bench-resilience runs the stack on a PostgreSQL it started (--postgres)."""
    name = "postgres-restart"
    seconds = 10

    def available(self):
        if not POSTGRES_DIR:
            return "the stores are not on PostgreSQL (scripts/bench-resilience --postgres)"
        return None

    def pg_ctl(self, *arguments):
        subprocess.run(["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", os.path.join(POSTGRES_BIN, "pg_ctl"),
                        "-D", POSTGRES_DIR, *arguments], check=True, capture_output=True, text=True)

    def start(self, seconds):
        self.pg_ctl("-m", "immediate", "-w", "stop")

    def end(self):
        # Without a running server, restart starts it with the options it last ran with.
        self.pg_ctl("-l", os.path.join(POSTGRES_DIR, "server.log"), "-w", "-t", "120", "restart")


RUN_DIR = ""
DATA_DIR = ""
POSTGRES_DIR = ""
POSTGRES_BIN = ""
SCENARIOS = {scenario.name: scenario for scenario in [ProviderOutage(), ProviderThrottle(), BrokerRestart()] + [
    Kill(f"herald-{name}") for name in ("gateway", "registration", "preferences", "encryption", "fcm", "hms", "apns", "webhook")]
    + [DiskFull(), PostgresRestart()]}


def with_channel(args, work):
    """`work(channel)` on a connection of its own to the broker."""
    connection = pika.BlockingConnection(pika.URLParameters(args.amqp_url))
    try:
        return work(connection.channel())
    finally:
        connection.close()


def dead_letters(args):
    """Messages in the dead-letters queue (every dead letter, kept for heraldctl; nothing
    consumes it) now."""
    return with_channel(args, lambda channel: pipeline.ready_counts(channel, ["dead-letters"])["dead-letters"])


def wait_until_idle(args, timeout=600):
    """Waits until the work queues and every retry tier are empty (twice in a row), so a
    scenario does not start behind the last one's backlog; answers the seconds it took."""
    started = time.time()

    def wait(channel):
        empty_in_a_row = 0
        while empty_in_a_row < 2 and time.time() - started < timeout:
            ready = sum(pipeline.ready_counts(channel, EVERY_QUEUE).values())
            empty_in_a_row = empty_in_a_row + 1 if ready == 0 else 0
            time.sleep(0.5)

    with_channel(args, wait)
    return round(time.time() - started, 1)


def run_memory(args, base, run):
    """Group pushes (20 devices each) until the sandbox counted `args.memory_deliveries`; each
    process's resident memory every 2 s, and at 10^4 and at the last mark."""
    ids, per_id = pipeline.AUDIENCES["group"]
    marks = [10_000, args.memory_deliveries]
    before = pipeline.sandbox_delivered()
    started = time.time()
    seconds = int(args.memory_deliveries / (args.memory_rate * per_id) * 2) + 60
    load = subprocess.Popen(pipeline.wrk_command(args.api_key, run, f"{base}-group-", ids, seconds, 32, args.memory_rate),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    series, at_marks = [], {}
    try:
        while True:
            delivered = int(pipeline.sandbox_delivered() - before)
            sizes = {name: round(size, 1) for name, size in pipeline.Processes(args.run_dir).rss_mib().items()}
            series.append({"t": round(time.time() - started, 1), "delivered": delivered, "residentMiB": sizes})
            for mark in marks:
                if delivered >= mark and str(mark) not in at_marks:
                    at_marks[str(mark)] = {"delivered": delivered, "residentMiB": sizes}
            if delivered >= marks[-1] or load.poll() is not None:
                break
            time.sleep(2)
    finally:
        load.terminate()
        load.wait()
    seconds = round(time.time() - started, 1)
    drained = wait_until_idle(args)
    sandbox("DELETE", "/sandbox/messages")
    return {"scenario": "memory", "run": run, "rate": args.memory_rate, "devicesPerEvent": per_id,
            "seconds": seconds, "delivered": series[-1]["delivered"], "backlogDrainedSeconds": drained,
            "atDeliveries": at_marks, "series": series}


def receipts_of(load, run):
    """The arrival times (Unix ms) of every push or forward the sandbox accepted for this run,
    by event id."""
    by_event = {}
    for millis, event in load.receipts(run):
        by_event.setdefault(event, []).append(millis)
    return by_event


# Every queue a scenario's events can wait in: each load's work queues and retry tiers.
EVERY_QUEUE = list(dict.fromkeys(queue for load in LOADS.values() for queue in load.queues()))


def stage_retries():
    """Inputs each service's stages put back on their queues so far (a failure retried, or
    waited out while the service could not work)."""
    counts = {}
    for name in pipeline.METRICS_PORTS:
        if name != "herald-sandbox":
            counts[name] = pipeline.metric(pipeline.scrape(name), "herald_stage_messages_total", result="retried")
    return counts


def run_scenario(args, scenario, base, run):
    dead_before = dead_letters(args)
    retries_before = stage_retries()
    loads = [LOADS[name] for name in getattr(scenario, "loads", ["fcm"])]
    sampler = pipeline.QueueSampler(args.amqp_url, list(dict.fromkeys(queue for load in loads for queue in load.queues())))
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
    # The rate shared by the loads, each its own wrk; the platform in the event ids keeps
    # two loads' ids apart (`<run>-<platform>-<thread>-<sent at>-<n>`).
    ids, _ = pipeline.AUDIENCES["solo"]
    answers = {}

    def drive(load):
        answers[load.platform] = pipeline.wrk(load.api_key(args), f"{run}-{load.platform}", f"{base}-{load.audience}-", ids,
                                              args.seconds, 32, args.rate / len(loads), app=load.app)

    drivers = [threading.Thread(target=drive, args=(load,)) for load in loads]
    for driver in drivers:
        driver.start()
    for driver in drivers:
        driver.join()
    injector.join()
    # Accepted: the 202s the client received (wrk's answers; the gateway's own counter
    # starts again when the gateway is the service killed).
    accepted_by_load = {platform: int(answer["requests"] - answer["non2xx"]) for platform, answer in answers.items()}
    accepted = sum(accepted_by_load.values())
    deadline = time.time() + args.drain_timeout
    while True:
        # Past the deadline before the count is fetched: a count begun earlier is not the last.
        late = time.time() > deadline
        receipts_by_load = {load.platform: receipts_of(load, run) for load in loads}
        receipts = {event: times for by_event in receipts_by_load.values() for event, times in by_event.items()}
        if len(receipts) >= accepted or late:
            break
        time.sleep(1)
    samples = []
    for sample in sampler.stop():
        # Each dispatcher's retry tiers as one column: what waits to be sent again.
        for load in loads:
            tiers = [sample.pop(queue) for queue in load.retry_queues() if queue in sample]
            if tiers:
                sample[f"retry.{load.platform} (every tier)"] = sum(tiers)
        samples.append(sample)
    retries_after = stage_retries()
    pushes = sum(len(times) for times in receipts.values())
    last = max((max(times) for times in receipts.values()), default=int(time.time() * 1000)) / 1000
    per_second = {}
    for times in receipts.values():
        for received in times:
            second = int(received / 1000 - started)
            per_second[second] = per_second.get(second, 0) + 1
    for load in loads:
        load.clear()
    return {
        "scenario": scenario.name, "run": run, "rate": args.rate,
        "loadSeconds": round(max(answer["seconds"] for answer in answers.values()), 2),
        # Where the events went: accepted and delivered per load (a dispatcher and its app).
        "loads": {f"{load.platform} ({load.app})": {"accepted": accepted_by_load[load.platform],
                                                   "delivered": len(receipts_by_load[load.platform]),
                                                   "duplicates": sum(len(times) - 1 for times in receipts_by_load[load.platform].values())}
                  for load in loads},
        "faultFromSecond": round(fault["start"] - started, 1), "faultToSecond": round(fault["end"] - started, 1),
        "accepted": accepted, "expected": accepted, "delivered": len(receipts), "lost": max(0, accepted - len(receipts)),
        "duplicates": pushes - len(receipts),
        # The backlog of the fault is gone once every event sent before the fault ended has
        # arrived: the last such arrival, after the fault's end.
        "drainSecondsAfterFault": round(max(0.0, max((max(times) for event, times in receipts.items()
                                                      if int(event.split("-")[-2]) <= fault["end"] * 1000), default=0) / 1000 - fault["end"]), 1),
        # The longest any accepted event waited: from its request to its first push.
        "longestWaitSeconds": round(max((min(times) - int(event.split("-")[-2]) for event, times in receipts.items()), default=0) / 1000, 1),
        "deliveredPerSecond": [per_second.get(s, 0) for s in range(0, int(last - started) + 1)],
        "queueDepth": samples,
        "deadLettered": dead_letters(args) - dead_before,
        # A service killed in the scenario counts from its restart.
        "stageRetries": {name: int(max(0, retries_after[name] - (retries_before[name] if retries_after[name] >= retries_before[name] else 0)))
                         for name in retries_after},
        "mostQueued": max((sum(value for key, value in sample.items() if key != "t" and value is not None) for sample in samples), default=0),
        "residentMiB": {name: round(size, 1) for name, size in pipeline.Processes(args.run_dir).rss_mib().items()},
        **({"freeBytesDuringFault": scenario.free_during} if hasattr(scenario, "free_during") else {}),
    }


# The soak's faults, one every FAULT_EVERY seconds in this order (then again from the first):
# a kill -9 of each service, a broker restart, a provider outage and throttling, a full disk
# (of the SQLite stores; on PostgreSQL, a crash and restart of the PostgreSQL server instead).
SOAK_FAULTS = ["kill-gateway", "broker-restart", "kill-registration", "provider-outage", "kill-preferences", "kill-encryption",
               "disk-full", "kill-fcm", "provider-429", "kill-hms", "kill-apns", "kill-webhook"]


def soak_faults():
    return [("postgres-restart" if POSTGRES_DIR and name == "disk-full" else name) for name in SOAK_FAULTS]


def store_bytes():
    """What Registration's store takes now, {part: bytes}: on SQLite its file and WAL, on
    PostgreSQL its schema's tables with their indexes and TOAST. None parts it cannot read."""
    if POSTGRES_DIR:
        url = os.environ.get("HERALD_DATABASE_URL", "")
        query = ("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                 "WHERE n.nspname = 'registration' AND c.relkind = 'r'")
        environment = {**os.environ, "PGSSLROOTCERT": os.environ.get("HERALD_DATABASE_CA_FILE", "")}
        try:
            output = subprocess.run(["psql", url, "-At", "-c", query], capture_output=True, text=True, timeout=30, env=environment, check=True)
            return {"postgres": int(output.stdout.strip())}
        except (subprocess.SubprocessError, ValueError):
            return {"postgres": None}
    path = os.path.join(DATA_DIR or os.path.join(RUN_DIR, "data"), "herald-registration", "registration.sqlite")
    return {name: (os.path.getsize(path + suffix) if os.path.exists(path + suffix) else None)
            for name, suffix in (("sqlite", ""), ("wal", "-wal"))}


def store_steadiness(memory):
    """Registration's store once the first retention period has passed (issue 62's soak, with
    HERALD_OUTCOME_RETENTION_HOURS set): per part, and for all parts together, its size at the
    first sample after that period, the least and most after it, and the largest change from
    the first in percent (the soak asks for at most 10). None without an hourly retention."""
    hours = os.environ.get("HERALD_OUTCOME_RETENTION_HOURS")
    if not hours:
        return None
    settled = float(hours) * 3600
    later = [sample for sample in memory if sample["t"] >= settled and sample.get("storeBytes")
             and all(size is not None for size in sample["storeBytes"].values())]
    if len(later) < 2:
        return None
    series = {part: [sample["storeBytes"][part] for sample in later] for part in later[0]["storeBytes"]}
    if len(series) > 1:
        series["total"] = [sum(sample["storeBytes"].values()) for sample in later]
    return {part: {"fromSecond": later[0]["t"], "toSecond": later[-1]["t"], "firstBytes": values[0], "minBytes": min(values),
                   "maxBytes": max(values),
                   "largestChangePercent": round(max(abs(value - values[0]) for value in values) / max(1, values[0]) * 100, 1)}
            for part, values in series.items()}


def run_soak(args, base, run):
    """RATE events/s for SOAK seconds, a quarter each to FCM, Push Kit, APNs and webhook
    devices, with a fault every FAULT_EVERY seconds (SOAK_FAULTS in turn, the first half an
    interval in); each process's resident memory and the deliveries so far every minute.
    Then it waits for every accepted event to arrive, and reports accepted, lost, pushed
    twice, the longest wait, and each process's memory growth after its first ten minutes
    (or after its restart, for a process a fault restarted later). Registration's store size
    is sampled with the memory (with HERALD_OUTCOME_RETENTION_HOURS set, issue 62's soak: the
    size must hold still once the first retention period has passed)."""
    loads = [LOADS[name] for name in ("fcm", "hms", "apns", "webhook")]
    dead_before = dead_letters(args)
    started = time.time()
    faults, memory, stop = [], [], threading.Event()

    def inject():
        index = 0
        while True:
            at = args.fault_every / 2 + index * args.fault_every
            if at + 60 > args.soak or stop.wait(max(0, started + at - time.time())):
                return
            faults_in_turn = soak_faults()
            scenario = SCENARIOS[faults_in_turn[index % len(faults_in_turn)]]
            reason = scenario.available() if hasattr(scenario, "available") else None
            record = {"fault": scenario.name, "fromSecond": round(time.time() - started, 1)}
            if reason:
                record["skipped"] = reason
            else:
                seconds = getattr(scenario, "seconds", args.fault_seconds)
                scenario.start(seconds)
                time.sleep(seconds)
                scenario.end()
                record["toSecond"] = round(time.time() - started, 1)
            faults.append(record)
            pipeline.log(f"soak: {record}")
            index += 1

    def sample():
        while True:
            try:
                processes = pipeline.Processes(args.run_dir)
                sizes = {name: round(size, 1) for name, size in processes.rss_mib().items()}
                anonymous = {name: round(size, 1) for name, size in processes.rss_mib("RssAnon").items()}
                delivered = int(pipeline.sandbox_delivered())
            except Exception as error:  # a process between its kill and its restart
                sizes, anonymous, delivered = {"error": str(error)}, {}, None
            memory.append({"t": round(time.time() - started, 1), "delivered": delivered, "residentMiB": sizes,
                           "anonymousMiB": anonymous, "storeBytes": store_bytes()})
            if stop.wait(60):
                return

    ids, _ = pipeline.AUDIENCES["solo"]
    answers = {}

    def drive(load):
        answers[load.platform] = pipeline.wrk(load.api_key(args), f"{run}-{load.platform}", f"{base}-{load.audience}-", ids,
                                              args.soak, 32, args.rate / len(loads), app=load.app)

    threads = [threading.Thread(target=inject, daemon=True), threading.Thread(target=sample, daemon=True)]
    threads += [threading.Thread(target=drive, args=(load,)) for load in loads]
    for thread in threads:
        thread.start()
    for thread in threads[2:]:
        thread.join()
    stop.set()
    threads[0].join()
    threads[1].join()
    accepted_by_load = {platform: int(answer["requests"] - answer["non2xx"]) for platform, answer in answers.items()}
    accepted = sum(accepted_by_load.values())
    deadline = time.time() + args.drain_timeout
    while True:
        # Past the deadline before the count is fetched: fetching 1.8 million receipts takes a
        # while, and a count begun before the last events arrived is not the last (the first
        # hour-long run stopped on such a count, 2,248 short).
        late = time.time() > deadline
        receipts_by_load = {load.platform: receipts_of(load, run) for load in loads}
        delivered = sum(len(by_event) for by_event in receipts_by_load.values())
        if delivered >= accepted or late:
            break
        time.sleep(5)
    receipts = {event: times for by_event in receipts_by_load.values() for event, times in by_event.items()}
    # Growth after the first ten minutes, or after the process's last restart (its pid changed).
    growth = {}
    for name in sorted({name for sample in memory for name in sample["residentMiB"] if name != "error"}):
        points = [(sample["t"], sample["residentMiB"][name]) for sample in memory if name in sample["residentMiB"]]
        restarts = [record["toSecond"] for record in faults if "toSecond" in record and (
            record["fault"] == f"kill-{name.removeprefix('herald-')}" or (name == "rabbitmq" and record["fault"] == "broker-restart"))]
        settled = max([600.0] + [t + 600 for t in restarts])
        later = [p for p in points if p[0] >= settled]
        if len(later) >= 2:
            anonymous = [sample.get("anonymousMiB", {}).get(name) for sample in memory if sample["t"] >= settled]
            anonymous = [size for size in anonymous if size is not None]
            growth[name] = {"fromSecond": later[0][0], "fromMiB": later[0][1], "toMiB": later[-1][1],
                            "growthMiB": round(later[-1][1] - later[0][1], 1), "maxMiB": max(p[1] for p in points),
                            **({"anonymousGrowthMiB": round(anonymous[-1] - anonymous[0], 1)} if len(anonymous) >= 2 else {})}
    return {
        "scenario": "soak", "run": run, "rate": args.rate, "seconds": args.soak, "faultEvery": args.fault_every,
        "retention": " ".join(f"{key}={os.environ[key]}" for key in ("HERALD_OUTCOME_RETENTION_HOURS", "HERALD_OUTCOME_RETENTION_DAYS",
                                                                     "HERALD_IDEMPOTENCY_WINDOW_HOURS") if os.environ.get(key)) or None,
        "loads": {f"{load.platform} ({load.app})": {"accepted": accepted_by_load[load.platform],
                                                   "delivered": len(receipts_by_load[load.platform]),
                                                   "duplicates": sum(len(times) - 1 for times in receipts_by_load[load.platform].values())}
                  for load in loads},
        "accepted": accepted, "delivered": len(receipts), "lost": max(0, accepted - len(receipts)),
        "duplicates": sum(len(times) - 1 for times in receipts.values()),
        "longestWaitSeconds": round(max((min(times) - int(event.split("-")[-2]) for event, times in receipts.items()), default=0) / 1000, 1),
        "deadLettered": dead_letters(args) - dead_before,
        "faults": faults, "memory": memory, "memoryGrowthAfterTenMinutes": growth,
        "storeAfterRetention": store_steadiness(memory),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--amqp-url", default="amqp://guest:guest@127.0.0.1:5672/")
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--scenarios", default=",".join(["memory"] + list(SCENARIOS)))
    parser.add_argument("--memory-deliveries", type=int, default=1_000_000)
    parser.add_argument("--memory-rate", type=int, default=175)
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--fault-at", type=int, default=15)
    parser.add_argument("--fault-seconds", type=int, default=30)
    parser.add_argument("--drain-timeout", type=int, default=600)
    parser.add_argument("--output", required=True)
    parser.add_argument("--soak", type=int, default=0, help="seconds of the soak run (instead of the scenarios)")
    parser.add_argument("--fault-every", type=int, default=300)
    parser.add_argument("--postgres-dir", default="", help="the data folder of the PostgreSQL server the stores are on")
    parser.add_argument("--postgres-bin", default="", help="the folder of that server's pg_ctl")
    args = parser.parse_args()

    global RUN_DIR, DATA_DIR, POSTGRES_DIR, POSTGRES_BIN
    RUN_DIR = args.run_dir
    DATA_DIR = args.data_dir
    POSTGRES_DIR = args.postgres_dir
    POSTGRES_BIN = args.postgres_bin
    names = args.scenarios.split(",")
    unknown = [name for name in names if name not in SCENARIOS and name != "memory"]
    if unknown:
        parser.error(f"unknown scenarios {', '.join(unknown)}; known: memory, {', '.join(SCENARIOS)}")
    run = f"r{int(time.time()) % 100000000:08d}"
    pipeline.register_devices(args.api_key, run, {"solo": pipeline.AUDIENCES["solo"], "group": pipeline.AUDIENCES["group"]})
    platforms = {"hms", "apns", "webhook"} if args.soak else {load for name in names if name in SCENARIOS for load in getattr(SCENARIOS[name], "loads", [])}
    for load in platforms:
        if load != "fcm":
            LOADS[load].register(args, run)
    results = []
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    document = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(), "commit": commit,
                "stores": "postgresql" if POSTGRES_DIR else "sqlite", "scenarios": results}
    if args.soak:
        result = run_soak(args, run, f"{run}soak")
        result["commit"] = commit
        results.append(result)
        pipeline.log(f"soak: {args.soak} s at {args.rate} events/s, {len(result['faults'])} faults: accepted {result['accepted']}, "
                     f"delivered {result['delivered']}, lost {result['lost']}, duplicates {result['duplicates']}, "
                     f"longest wait {result['longestWaitSeconds']} s, dead-lettered {result['deadLettered']}")
        for part, steadiness in (result["storeAfterRetention"] or {}).items():
            pipeline.log(f"soak: Registration's store ({part}) from second {steadiness['fromSecond']}: {steadiness['firstBytes']:,} bytes, "
                         f"{steadiness['minBytes']:,} to {steadiness['maxBytes']:,}, at most {steadiness['largestChangePercent']} % from the first")
        with open(args.output, "w") as out:
            json.dump(document, out, indent=1)
        return
    for index, name in enumerate(names):
        waited = wait_until_idle(args)
        if waited > 2:
            pipeline.log(f"waited {waited} s for the queues to empty before {name}")
        if name == "memory":
            result = run_memory(args, run, f"{run}s{index}")
            pipeline.log(f"memory: {result['delivered']} deliveries in {result['seconds']} s; resident MiB at "
                         + "; ".join(f"{mark}: {mark_figures['residentMiB']}" for mark, mark_figures in result["atDeliveries"].items()))
        else:
            scenario = SCENARIOS[name]
            reason = scenario.available() if hasattr(scenario, "available") else None
            if reason:
                result = {"scenario": name, "skipped": reason}
                pipeline.log(f"{name}: skipped: {reason}")
            else:
                result = run_scenario(args, scenario, run, f"{run}s{index}")
                pipeline.log(f"{name}: accepted {result['accepted']}, delivered {result['delivered']}, lost {result['lost']}, "
                             f"duplicates {result['duplicates']}, dead-lettered {result['deadLettered']}, drained "
                             f"{result['drainSecondsAfterFault']} s after the fault, longest wait {result['longestWaitSeconds']} s "
                             f"(fault from {result['faultFromSecond']} s to {result['faultToSecond']} s)")
        # Each scenario names the commit it measured: a document may gather runs of several.
        result["commit"] = commit
        results.append(result)
        # Written after every scenario: a long run interrupted keeps what it measured.
        with open(args.output, "w") as out:
            json.dump(document, out, indent=1)


if __name__ == "__main__":
    main()
