"""A lossy, slow link where the kernel has no `tc netem` (scripts/partition-check's fallback).

Run inside a test host's network namespace; iptables there sends the link's packets, both
directions, to NFQUEUE queue QUEUE. Each packet is dropped with probability LOSS, and the
rest are let through DELAY seconds after they arrived, in order. A drop verdict given after
queueing is silent, as a lost packet on a wire is: the sender's socket is not told.

    python link_impairment.py --queue 1 --loss 0.2 --delay 0.2
"""
import argparse
import collections
import random
import signal
import socket
import sys
import threading
import time

from netfilterqueue import NetfilterQueue


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queue", type=int, required=True)
    parser.add_argument("--loss", type=float, required=True)
    parser.add_argument("--delay", type=float, required=True)
    args = parser.parse_args()

    held = collections.deque()
    ready = threading.Condition()

    def arrived(packet):
        if random.random() < args.loss:
            packet.drop()
            return
        with ready:
            held.append((time.monotonic() + args.delay, packet))
            ready.notify()

    def release():
        # Every packet waits the same delay, so the oldest is always due first.
        while True:
            with ready:
                while not held:
                    ready.wait()
                due, packet = held[0]
                wait = due - time.monotonic()
                if wait > 0:
                    ready.wait(wait)
                    continue
                held.popleft()
            packet.accept()

    threading.Thread(target=release, daemon=True).start()
    queue = NetfilterQueue()
    queue.bind(args.queue, arrived, max_len=65536)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"impairing queue {args.queue}: {args.loss:.0%} loss, {args.delay * 1000:.0f} ms delay", flush=True)
    try:
        queue.run_socket(socket.fromfd(queue.get_fd(), socket.AF_UNIX, socket.SOCK_STREAM))
    finally:
        queue.unbind()


if __name__ == "__main__":
    main()
