#!/usr/bin/env python3
"""What Herald's stores take per event (a benchmark, not a test): on a running stack
(scripts/run up, SQLite or PostgreSQL), registers each shape's devices, sends each push id
one warm-up event (so what the stores keep per device, such as its latest outcome, exists
before counting), then posts EVENTS Smart ID pushes twice, waiting each time until the
sandbox has every delivery and the stores stop growing, and reports the bytes each table and
index of Registration's and Preferences' stores grew by, per event and per delivery.

- first: the first batch's growth. On PostgreSQL it includes the row versions its updates
  left dead, which nothing has reclaimed yet.
- steady: the second batch's, after a plain VACUUM (what autovacuum does within a minute on
  a live system) made the first batch's dead versions reusable: what each further event
  costs once the store runs. On SQLite, which updates rows in place, the two agree.

SQLite is read with `dbstat` (pages in use, through the WAL; the files and the WAL are
reported beside); PostgreSQL with pg_relation_size (main forks, and TOAST).

Shapes: solo (one device per event), group (20 devices per event).
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pipeline"))
from bench_pipeline import AUDIENCES, log, register_devices, sandbox_delivered  # noqa: E402

STORES = ("registration", "preferences")


def sqlite_sizes(run_dir):
    """{store: {"objects": {name: bytes}, "files": {name: bytes}}} of the SQLite stores."""
    sizes = {}
    for store in STORES:
        path = os.path.join(run_dir, "data", f"herald-{store}", f"{store}.sqlite")
        if not os.path.exists(path):
            continue
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            objects = dict(connection.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall())
        finally:
            connection.close()
        files = {os.path.basename(p): os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p)}
        sizes[store] = {"objects": objects, "files": files}
    return sizes


def postgres_sizes(url):
    """{"postgres": {"objects": {name: bytes}}}: every table (with its TOAST) and index, their
    main forks: the free-space and visibility maps a first VACUUM adds to each table (three
    pages, whatever its size) are not what an event costs."""
    query = ("SELECT c.relname, pg_relation_size(c.oid) + CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END "
             "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
             "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND c.relkind IN ('r', 'i', 'p')")
    output = subprocess.run(["psql", url, "-At", "-F", "\t", "-c", query], check=True, capture_output=True, text=True).stdout
    objects = {}
    for line in output.splitlines():
        name, size = line.split("\t")
        objects[name] = int(size)
    return {"postgres": {"objects": objects}}


def post_events(api_key, run, prefix, ids, count, batch, connections=16):
    """`count` Smart ID pushes (ids `<run>-<prefix>-<batch>-<n>`) to the push ids
    `<run>-<prefix>-<n>`, in turn."""
    def send(chunk):
        connection = http.client.HTTPConnection("127.0.0.1", 8080, timeout=30)
        for n in chunk:
            body = json.dumps({"messageId": f"{run}-{prefix}-{batch}-{n}", "pushId": f"{run}-{prefix}-{n % ids}",
                               "requestor": "Bench", "type": "AUTH", "timeToLive": 300})
            for attempt in range(10):
                try:
                    connection.request("POST", "/v1/apps/demo/smartid/push", body,
                                       {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"})
                    answer = connection.getresponse()
                    answer.read()
                    if answer.status == 202:
                        break
                    if answer.status != 503:
                        raise RuntimeError(f"POST smartid/push answered {answer.status}")
                except (OSError, http.client.HTTPException):
                    connection = http.client.HTTPConnection("127.0.0.1", 8080, timeout=30)
                time.sleep(0.2 * (attempt + 1))
            else:
                raise RuntimeError("a push was refused 10 times")
    chunks = [range(i, count, connections) for i in range(connections)]
    with concurrent.futures.ThreadPoolExecutor(connections) as pool:
        list(pool.map(send, chunks))


def total(sizes):
    return sum(sum(store["objects"].values()) for store in sizes.values())


def settled(measure, timeout=120):
    """The sizes once two readings 3 s apart agree (the outcomes are recorded)."""
    deadline = time.time() + timeout
    last = measure()
    while time.time() < deadline:
        time.sleep(3)
        now = measure()
        if total(now) == total(last):
            return now
        last = now
    return last


def growth(before, after):
    rows = {}
    for store, sizes in after.items():
        for name, size in sizes["objects"].items():
            grown = size - before.get(store, {}).get("objects", {}).get(name, 0)
            if grown:
                rows[f"{store}.{name}"] = grown
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--shapes", default="solo,group")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    measure = (lambda: postgres_sizes(args.database_url)) if args.database == "postgres" else (lambda: sqlite_sizes(args.run_dir))
    run = f"s{int(time.time()) % 100000000:08d}"
    vacuum = (lambda: subprocess.run(["psql", args.database_url, "-qAt", "-c", "VACUUM"], check=True,
                                     env={**os.environ, "PGOPTIONS": "-c client_min_messages=error"})) if args.database == "postgres" else (lambda: None)
    results = []
    for shape in args.shapes.split(","):
        ids, per_id = AUDIENCES[shape]
        register_devices(args.api_key, run, {shape: (ids, per_id)})

        def batch(name, count):
            delivered_before = sandbox_delivered()
            started = time.time()
            post_events(args.api_key, run, shape, ids, count, name)
            while sandbox_delivered() - delivered_before < count * per_id:
                if time.time() - started > 600:
                    raise RuntimeError(f"{shape} {name}: {sandbox_delivered() - delivered_before} of {count * per_id} deliveries in 10 minutes")
                time.sleep(1)
            return settled(measure)

        start = batch("warmup", ids)
        first = batch("first", args.events)
        vacuum()
        steady = batch("steady", args.events)
        deliveries = args.events * per_id
        for phase, before, after in (("first", start, first), ("steady", first, steady)):
            rows = growth(before, after)
            grown = sum(rows.values())
            result = {
                "shape": shape, "database": args.database, "phase": phase, "events": args.events, "deliveries": deliveries,
                "bytesPerEvent": round(grown / args.events, 1), "bytesPerDelivery": round(grown / deliveries, 1),
                "byObjectPerEvent": {name: round(size / args.events, 1) for name, size in sorted(rows.items(), key=lambda kv: -kv[1])},
                "files": {store: sizes.get("files", {}) for store, sizes in after.items()},
            }
            results.append(result)
            log(f"{args.database} {shape} {phase}: {result['bytesPerEvent']} bytes per event, {result['bytesPerDelivery']} per delivery")
            for name, size in list(result["byObjectPerEvent"].items())[:12]:
                log(f"    {name:48} {size:>8} B/event")
            if result["files"]:
                log(f"    files: {result['files']}")
    with open(args.output, "w") as out:
        json.dump({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
