#!/usr/bin/env python3
"""What scripts/test prints when a test run passes its deadline.

    hung-tests.py unfinished LOG   the tests LOG (swift test's output) shows started and not ended
    hung-tests.py threads DUMP     the threads of a gdb "thread apply all bt" DUMP that are doing
                                   something: the idle ones (AMQP channel workers, event loops,
                                   libcurl and dispatch waiting for work) are left out
"""
import re
import sys

IDLE = ("ChannelWorker", "epoll_wait", "curl_multi_poll", "_dispatch_sigsuspend",
        "_dispatch_semaphore_wait_slow", "_dispatch_mgr_thread")


def unfinished(path):
    started, ended = [], set()
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.strip()
            if line.startswith("◇ Test case "):
                continue
            match = re.match(r"◇ Test (.+) started\.$", line)
            if match and match.group(1) != "run":
                started.append(match.group(1))
                continue
            match = (re.match(r"[✔✘] Test (.+?)(?: with \d+ test cases?)? (?:passed|failed) after [\d.]+ seconds", line)
                     or re.match(r"➜ Test (.+) skipped", line))
            if match:
                ended.add(match.group(1))
    names = [name for name in started if name not in ended]
    for name in names:
        print(f"  still running: {name}")
    if not names:
        print("  (every test that started has ended)")


def threads(path):
    with open(path, encoding="utf-8", errors="replace") as dump:
        text = dump.read()
    for thread in re.split(r"\n(?=Thread \d+ )", text):
        if not thread.startswith("Thread ") or any(idle in thread for idle in IDLE):
            continue
        frames = [re.sub(r" \(.*", "", line)[:200] for line in thread.splitlines() if line.startswith("#")]
        print(thread.splitlines()[0][:120])
        print("\n".join(f"    {frame}" for frame in frames))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("unfinished", "threads"):
        sys.exit(__doc__)
    {"unfinished": unfinished, "threads": threads}[sys.argv[1]](sys.argv[2])
