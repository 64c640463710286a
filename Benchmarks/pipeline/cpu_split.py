"""Splits a system-wide `perf record` of a pipeline run by process and by where each
sample landed: the kernel, the Swift runtime (retain/release, generics, tasks, dispatch),
libc (malloc, memcpy), the process's own code with SwiftNIO and Foundation, and the C
libraries it calls (SQLite, libcurl, OpenSSL, nghttp2, rabbitmq-c; code perf cannot name,
`[unknown]`, is counted with them). RabbitMQ's samples in beam.smp, its JIT code included,
are its own code. Used for docs/benchmarks.md's "where the CPU goes" tables.

    python3 cpu_split.py PERF_DATA PS_SNAPSHOT [BENCH_JSON SHAPE]

PS_SNAPSHOT is `ps -eo pid,comm` taken while perf recorded (pids name the processes; a
thread's own name says nothing). With the benchmark's JSON, each process's CPU ms per
delivery is printed beside its split.
"""
import collections
import json
import subprocess
import sys

GROUPS = [
    ("kernel", lambda dso: dso.startswith("[kernel")),
    ("Swift runtime", lambda dso: any(name in dso for name in ("libswiftCore", "libswift_Concurrency", "libswiftSynchronization", "libdispatch", "libBlocksRuntime"))),
    ("libc", lambda dso: any(name in dso for name in ("libc.so", "ld-linux", "libm.so", "[vdso]"))),
    ("libraries", lambda dso: any(name in dso for name in ("libsqlite3", "libcurl", "libssl", "libcrypto", "libnghttp2", "librabbitmq", "perf-", "[unknown]", "[JIT]"))),
    ("own code, NIO, Foundation", lambda dso: True),
]


def process_names(snapshot):
    names = {}
    with open(snapshot) as lines:
        for line in lines:
            parts = line.split()
            if len(parts) >= 2 and parts[0].isdigit():
                names[int(parts[0])] = parts[1]
    return names


def main():
    perf_data, snapshot = sys.argv[1], sys.argv[2]
    cpu = {}
    if len(sys.argv) > 4:
        document = json.load(open(sys.argv[3]))
        cpu = document["medians"][sys.argv[4]]["cpuMsPerDelivery"]
    names = process_names(snapshot)
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F", "pid,ip,dso", "-G"], capture_output=True, text=True).stdout
    samples = collections.Counter()
    split = collections.defaultdict(collections.Counter)
    for line in script.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 3 or not parts[0].isdigit():
            continue
        name = names.get(int(parts[0]), "other")
        if name == "beam.smp":
            name = "rabbitmq"
        dso = parts[2].strip().removeprefix("(").removesuffix(")")
        group = next(label for label, matches in GROUPS if matches(dso))
        samples[name] += 1
        split[name][group] += 1
    total = sum(samples.values())
    print(f"{total} samples")
    print("| process | CPU ms per delivery | samples | " + " | ".join(label for label, _ in GROUPS) + " |")
    print("|---|---|---|" + "---|" * len(GROUPS))
    for name, count in samples.most_common(12):
        shares = " | ".join(f"{100 * split[name][label] / count:.0f} %" for label, _ in GROUPS)
        # `ps` cuts a command's name to 15 characters (herald-registra).
        ms = next((value for key, value in cpu.items() if key.startswith(name)), "")
        print(f"| {name} | {ms} | {count} | {shares} |")


if __name__ == "__main__":
    main()
