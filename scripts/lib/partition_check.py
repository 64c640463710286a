"""scripts/partition-check's harness: network faults between test hosts while load runs,
and a checker that every accepted event was delivered (Jepsen-style, on one machine).

Test hosts are network namespaces on one bridge (10.77.0.0/24, a private range; nothing
outside it and the loopback is ever a target):

    sandbox     10.77.0.1   the root namespace: the provider sandbox, the load and the checker
    broker-1..3 10.77.0.11-13  one RabbitMQ node each, one cluster (quorum queues on all three)
    postgres    10.77.0.20  Registration's and Preferences' stores
    services-1  10.77.0.31  gateway, registration, preferences, encryption, callback
    services-2  10.77.0.32  the dispatchers (fcm, hms, apns, webhook, webpush)

The services reach the brokers over AMQP with TLS (amqps://, the CA checked, host names
verified) and PostgreSQL with sslmode=verify-full, as in production. Each fault runs while
Smart ID pushes go to the gateway at RATE events/s (a quarter each to FCM, Push Kit, APNs
and a webhook-mode app), and heals after its seconds. A partition is made with iptables in
the hosts' namespaces, dropping what arrives (silently, as a cut cable does); a lossy link
with `tc netem`, or where the kernel has none, with link_impairment.py on NFQUEUE.

The checker reads what the gateway accepted (202) and what the sandbox received, and for
each fault reports: accepted, delivered, lost (must be 0), duplicates with their causes,
dead-lettered (must be 0), and the recovery: from the heal until every service is ready,
every work queue has its consumers again, and every event accepted before the heal was
delivered. A history file per run (JSON lines: every request, delivery, fault and
recovery sample) lets a failure be replayed and read.
"""
import argparse
import base64
import collections
import concurrent.futures
import hashlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

NET = "10.77.0"
BRIDGE = "herald-pc0"
# name: (network namespace, last octet); the sandbox host is the root namespace.
HOSTS = {
    "sandbox": (None, 1),
    "broker-1": ("herald-pc-b1", 11), "broker-2": ("herald-pc-b2", 12), "broker-3": ("herald-pc-b3", 13),
    "postgres": ("herald-pc-pg", 20),
    "services-1": ("herald-pc-s1", 31), "services-2": ("herald-pc-s2", 32),
}
BROKERS = ["broker-1", "broker-2", "broker-3"]
# Each service's host and port (the ports of scripts/run); health and metrics of the gateway on 9080.
SERVICES = {
    "herald-registration": ("services-1", 8081), "herald-preferences": ("services-1", 8082),
    "herald-encryption": ("services-1", 8083), "herald-callback": ("services-1", 8088),
    "herald-fcm": ("services-2", 8084), "herald-hms": ("services-2", 8085), "herald-webhook": ("services-2", 8086),
    "herald-apns": ("services-2", 8087), "herald-webpush": ("services-2", 8089),
    "herald-gateway": ("services-1", 8080),
}
OPS_PORTS = {"herald-gateway": 9080}
# The order each host's services try the brokers in: services-2 starts on another node.
BROKER_ORDER = {"services-1": ["broker-1", "broker-2", "broker-3"], "services-2": ["broker-3", "broker-1", "broker-2"]}
PLATFORMS = ["fcm", "hms", "apns", "webhook"]
DEVICES_PER_PLATFORM = 25
FAULT_CHAIN = "HERALD-FAULT"
FORWARD_RULE = ["-i", BRIDGE, "-o", BRIDGE, "-m", "comment", "--comment", "herald partition-check", "-j", "ACCEPT"]


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def address(host):
    return f"{NET}.{HOSTS[host][1]}"


def run(argv, check=True, timeout=120):
    """argv's result; past `timeout` seconds its whole process group is killed (a CLI that
    waits on an unreachable node forks children that would keep its pipes open)."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        stderr = f"timed out after {timeout} s. {stderr}"
        process.returncode = -9
    result = subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip() or result.stdout.strip()}")
    return result


def on_each(function, items):
    """function(item) for every item at once; the results in order."""
    with concurrent.futures.ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(function, items))


def in_host(host, argv):
    """argv run on `host` (in its namespace; /etc/netns/<ns>/hosts is its /etc/hosts)."""
    namespace = HOSTS[host][0]
    return argv if namespace is None else ["ip", "netns", "exec", namespace] + argv


class History:
    """The run's history file: one JSON object per line, each with its kind and time."""

    def __init__(self, path):
        self.path = path
        self.file = open(path, "w")
        self.lock = threading.Lock()

    def write(self, kind, **fields):
        with self.lock:
            self.file.write(json.dumps({"kind": kind, "at": round(time.time(), 3), **fields}) + "\n")

    def close(self):
        self.file.close()


class Network:
    """The test hosts: a namespace per host, each with one veth link to the bridge."""

    def __init__(self):
        self.impairments = {}

    def create(self):
        self.destroy()
        run(["ip", "link", "add", BRIDGE, "type", "bridge"])
        run(["ip", "addr", "add", f"{address('sandbox')}/24", "dev", BRIDGE])
        run(["ip", "link", "set", BRIDGE, "up"])
        # Frames between the hosts cross the bridge; where bridged traffic goes through this
        # machine's iptables (br_netfilter) and FORWARD drops by default (as Docker sets
        # it), they must be let through.
        run(["iptables", "-I", "FORWARD", "1"] + FORWARD_RULE)
        hosts_file = "127.0.0.1 localhost\n" + f"127.0.1.1 {socket.gethostname()}\n" + \
            "".join(f"{address(name)} {name}\n" for name in HOSTS)
        for name, (namespace, octet) in HOSTS.items():
            if namespace is None:
                continue
            run(["ip", "netns", "add", namespace])
            os.makedirs(f"/etc/netns/{namespace}", exist_ok=True)
            with open(f"/etc/netns/{namespace}/hosts", "w") as hosts:
                hosts.write(hosts_file)
            outside = f"hpc-{octet}"
            run(["ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", namespace])
            run(["ip", "link", "set", outside, "master", BRIDGE, "up"])
            run(["ip", "-n", namespace, "addr", "add", f"{NET}.{octet}/24", "dev", "eth0"])
            run(["ip", "-n", namespace, "link", "set", "eth0", "up"])
            run(["ip", "-n", namespace, "link", "set", "lo", "up"])
            # Faults go in a chain of their own, seen by everything arriving or leaving.
            run(in_host(name, ["iptables", "-N", FAULT_CHAIN]))
            run(in_host(name, ["iptables", "-A", "INPUT", "-j", FAULT_CHAIN]))
            run(in_host(name, ["iptables", "-A", "OUTPUT", "-j", FAULT_CHAIN]))

    def destroy(self):
        for name, (namespace, octet) in HOSTS.items():
            if namespace is None:
                continue
            if os.path.exists(f"/run/netns/{namespace}"):
                pids = run(["ip", "netns", "pids", namespace], check=False).stdout.split()
                for signal_name in ("-TERM", "-KILL"):
                    for pid in pids:
                        run(["kill", signal_name, pid], check=False)
                    if signal_name == "-TERM" and pids:
                        deadline = time.time() + 15
                        while time.time() < deadline and run(["ip", "netns", "pids", namespace], check=False).stdout.split():
                            time.sleep(0.2)
                    pids = run(["ip", "netns", "pids", namespace], check=False).stdout.split()
                run(["ip", "netns", "del", namespace], check=False)
            shutil.rmtree(f"/etc/netns/{namespace}", ignore_errors=True)
            run(["ip", "link", "del", f"hpc-{octet}"], check=False)
        run(["ip", "link", "del", BRIDGE], check=False)
        while run(["iptables", "-D", "FORWARD"] + FORWARD_RULE, check=False).returncode == 0:
            pass

    def drop_arriving(self, host, sender):
        """What `sender` sends `host` is lost (one direction)."""
        run(in_host(host, ["iptables", "-A", FAULT_CHAIN, "-i", "eth0", "-s", address(sender), "-j", "DROP"]))

    def cut(self, one, other):
        """Nothing passes between the two hosts, either way."""
        self.drop_arriving(one, other)
        self.drop_arriving(other, one)

    def impair(self, host, loss, delay, python):
        """`host`'s link loses `loss` of the packets and delays the rest by `delay` seconds,
        each direction."""
        namespace = HOSTS[host][0]
        spec = ["loss", f"{loss * 100:g}%", "delay", f"{delay * 1000:g}ms"]
        outside = f"hpc-{HOSTS[host][1]}"
        if run(in_host(host, ["tc", "qdisc", "add", "dev", "eth0", "root", "netem"] + spec), check=False).returncode == 0:
            run(["tc", "qdisc", "add", "dev", outside, "root", "netem"] + spec)
            self.impairments[host] = ("netem", None)
            return "tc netem"
        # No netem in this kernel: NFQUEUE and link_impairment.py in the host's namespace.
        process = subprocess.Popen(
            in_host(host, [python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "link_impairment.py"),
                           "--queue", "1", "--loss", str(loss), "--delay", str(delay)]),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = process.stdout.readline()
        if not line.startswith("impairing"):
            raise RuntimeError(f"link_impairment.py did not start on {host}: {line}{process.stdout.read()}")
        for direction in (["-i", "eth0"], ["-o", "eth0"]):
            run(in_host(host, ["iptables", "-A", FAULT_CHAIN] + direction + ["-j", "NFQUEUE", "--queue-num", "1", "--queue-bypass"]))
        self.impairments[host] = ("nfqueue", process)
        return "NFQUEUE (this kernel has no netem)"

    def heal(self):
        """Every fault rule and impairment goes; the links are as made."""
        for name, (namespace, octet) in HOSTS.items():
            if namespace is not None:
                run(in_host(name, ["iptables", "-F", FAULT_CHAIN]))
        for host, (kind, process) in self.impairments.items():
            if kind == "netem":
                run(in_host(host, ["tc", "qdisc", "del", "dev", "eth0", "root"]), check=False)
                run(["tc", "qdisc", "del", "dev", f"hpc-{HOSTS[host][1]}", "root"], check=False)
            else:
                process.terminate()
                process.wait(10)
        self.impairments = {}


def openssl_issue(directory, name, subject, extensions):
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    base = os.path.join(directory, name)
    run(["openssl", "req", "-new"] + key + ["-keyout", f"{base}.key", "-out", f"{base}.csr", "-subj", subject])
    with open(f"{base}.ext", "w") as ext:
        ext.write(extensions)
    run(["openssl", "x509", "-req", "-in", f"{base}.csr", "-CA", os.path.join(directory, "ca.pem"),
         "-CAkey", os.path.join(directory, "ca.key"), "-CAcreateserial", "-days", "30", "-out", f"{base}.pem", "-extfile", f"{base}.ext"])
    os.remove(f"{base}.csr")
    os.remove(f"{base}.ext")


def make_tls(directory):
    """A CA, and certificates for the broker nodes and PostgreSQL by their host names."""
    os.makedirs(directory, exist_ok=True)
    run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", os.path.join(directory, "ca.key"), "-out", os.path.join(directory, "ca.pem"), "-days", "30",
         "-subj", "/CN=Herald partition-check CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    openssl_issue(directory, "broker", "/CN=broker", "subjectAltName=" + ",".join(f"DNS:{b}" for b in BROKERS) +
                  "\nextendedKeyUsage=serverAuth\n")
    openssl_issue(directory, "postgres", "/CN=postgres", "subjectAltName=DNS:postgres\nextendedKeyUsage=serverAuth\n")
    for name in os.listdir(directory):
        os.chmod(os.path.join(directory, name), 0o644 if name.endswith(".pem") else 0o600)


def as_user(user, argv):
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups"] + argv


class Brokers:
    """Three RabbitMQ nodes, rabbit@broker-1..3, one per host, joined into one cluster; TLS
    only (5671), the user herald."""

    def __init__(self, run_dir, tls_dir, partition_handling, net_ticktime):
        self.dir = os.path.join(run_dir, "rabbitmq")
        self.tls_dir = tls_dir
        self.partition_handling, self.net_ticktime = partition_handling, net_ticktime

    def node(self, host):
        return f"rabbit@{host}"

    def ctl(self, host, args, timeout=60, check=True, on=None):
        """rabbitmqctl against `host`'s node, run on host `on` (default: the node's own)."""
        return run(in_host(on or host, ["env", "HOME=/var/lib/rabbitmq", "rabbitmqctl", "-q", "-n", self.node(host)] + args),
                   timeout=timeout, check=check)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        tls = os.path.join(self.dir, "tls")
        os.makedirs(tls, exist_ok=True)
        for name in ("ca.pem", "broker.pem", "broker.key"):
            shutil.copy(os.path.join(self.tls_dir, name), tls)
        cookie = "/var/lib/rabbitmq/.erlang.cookie"
        if not os.path.exists(cookie):
            with open(cookie, "w") as file:
                file.write(secrets.token_hex(20).upper())
            shutil.chown(cookie, "rabbitmq", "rabbitmq")
            os.chmod(cookie, 0o400)
        for host in BROKERS:
            node_dir = os.path.join(self.dir, host)
            os.makedirs(node_dir, exist_ok=True)
            with open(os.path.join(node_dir, "rabbitmq.conf"), "w") as conf:
                conf.write(f"""listeners.tcp = none
listeners.ssl.default = 5671
ssl_options.cacertfile = {tls}/ca.pem
ssl_options.certfile = {tls}/broker.pem
ssl_options.keyfile = {tls}/broker.key
ssl_options.verify = verify_none
ssl_options.versions.1 = tlsv1.3
ssl_options.versions.2 = tlsv1.2
default_user = herald
default_pass = herald
loopback_users = none
cluster_partition_handling = {self.partition_handling}
net_ticktime = {self.net_ticktime}
""")
            with open(os.path.join(node_dir, "enabled_plugins"), "w") as plugins:
                plugins.write("[].\n")
        run(["chown", "-R", "rabbitmq:rabbitmq", self.dir])
        for host in BROKERS:
            self.start_node(host)
        for host in BROKERS:
            self.await_startup(host)
        for host in BROKERS[1:]:
            self.ctl(host, ["stop_app"])
            self.ctl(host, ["join_cluster", self.node(BROKERS[0])])
            self.ctl(host, ["start_app"])
        self.ctl(BROKERS[0], ["await_online_nodes", "3", "--timeout", "120"], timeout=150)
        log("RabbitMQ: a cluster of rabbit@broker-1, -2 and -3 (TLS on 5671)")

    def start_node(self, host):
        node_dir = os.path.join(self.dir, host)
        environment = [f"RABBITMQ_NODENAME={self.node(host)}", f"RABBITMQ_CONFIG_FILE={node_dir}/rabbitmq.conf",
                       f"RABBITMQ_MNESIA_BASE={node_dir}/mnesia", f"RABBITMQ_LOG_BASE={node_dir}/log",
                       f"RABBITMQ_ENABLED_PLUGINS_FILE={node_dir}/enabled_plugins", f"RABBITMQ_PID_FILE={node_dir}/pid"]
        run(in_host(host, ["sh", "-c", "ulimit -n 65536; cd /var/lib/rabbitmq && exec env HOME=/var/lib/rabbitmq "
                           + " ".join(environment) + " " + " ".join(as_user("rabbitmq", ["/usr/lib/rabbitmq/bin/rabbitmq-server", "-detached"]))]))

    def restart_node(self, host):
        """What an operator does for a node that does not rejoin: stops it hard and starts it
        again on its data; it rejoins the cluster it knows."""
        with open(os.path.join(self.dir, host, "pid")) as pid_file:
            run(["kill", "-KILL", pid_file.read().strip()], check=False)
        time.sleep(2)
        self.start_node(host)
        self.await_startup(host)

    def views(self):
        """{host: (the nodes its node sees running, the partitions it reports)}, asked of all three at once."""
        return dict(zip(BROKERS, on_each(self.running_nodes, BROKERS)))

    @staticmethod
    def split(views):
        """The nodes (of `views`) whose rabbit application does not run, or that do not see all three."""
        return [host for host, (nodes, partitions) in views.items()
                if nodes is None or len(nodes) != 3 or any(partitions.values() if isinstance(partitions, dict) else partitions)]

    def await_startup(self, host, seconds=120):
        deadline = time.time() + seconds
        while self.ctl(host, ["await_startup", "--timeout", "10"], check=False, timeout=30).returncode != 0:
            if time.time() > deadline:
                raise RuntimeError(f"{self.node(host)} did not start within {seconds} s")
            time.sleep(1)

    def running_nodes(self, host):
        """The nodes `host`'s node sees running, and the partitions it reports."""
        result = self.ctl(host, ["cluster_status", "--formatter", "json"], check=False, timeout=30)
        if result.returncode != 0:
            return None, None
        status = json.loads(result.stdout)
        return sorted(status.get("running_nodes", [])), status.get("partitions", {})

    def healthy(self):
        """Every node runs, sees all three, and none reports a partition."""
        return not self.split(self.views())

    @staticmethod
    def connections():
        """{broker host: {services host: connections}}: the services' AMQP connections as their
        hosts' sockets show them (quicker than asking a busy node)."""
        found = {host: {} for host in BROKERS}
        for client in ("services-1", "services-2"):
            listed = run(in_host(client, ["ss", "-Htn", "state", "established", "( dport = :5671 )"]), check=False).stdout
            for line in listed.split("\n"):
                fields = line.split()
                if len(fields) >= 4:
                    peer = fields[-1].rsplit(":", 1)[0]
                    for host in BROKERS:
                        if peer == address(host):
                            found[host][client] = found[host].get(client, 0) + 1
        return found

    def queues(self):
        """{queue: (messages, consumers, type)}, each queue as the node that leads it lists it
        (`--local` on every node: a listing across the cluster waits on every member and times
        out on one that is slow to answer). A node whose rabbit application is paused leads no
        queue, so the others' lists are taken without it; None if no node can say."""
        def local(host):
            return self.ctl(host, ["list_queues", "name", "messages", "consumers", "type", "--local", "--no-table-headers"],
                            check=False, timeout=45)
        listed = {}
        results = on_each(local, BROKERS)
        if all(result.returncode != 0 for result in results):
            return None
        for result in results:
            if result.returncode != 0:
                continue
            for line in result.stdout.splitlines():
                fields = line.split()
                if len(fields) == 4 and fields[1].isdigit():
                    listed[fields[0]] = (int(fields[1]), int(fields[2]), fields[3])
        return listed

    def stop(self):
        for host in BROKERS:
            self.ctl(host, ["stop"], check=False, timeout=60)


class Postgres:
    """A PostgreSQL server on host postgres, TLS with its certificate, the user herald."""

    def __init__(self, run_dir, tls_dir):
        self.dir = os.path.join(run_dir, "postgres")
        self.tls_dir = tls_dir
        self.bin = sorted(os.path.join("/usr/lib/postgresql", v, "bin") for v in os.listdir("/usr/lib/postgresql"))[-1]

    def start(self):
        os.makedirs(self.dir)
        shutil.chown(self.dir, "postgres", "postgres")
        os.chmod(self.dir, 0o700)
        run(as_user("postgres", [f"{self.bin}/initdb", "-D", self.dir, "-U", "postgres", "--auth-local=trust",
                                 "--auth-host=scram-sha-256"]))
        with open(os.path.join(self.dir, "pg_hba.conf"), "a") as hba:
            hba.write(f"hostssl all all {NET}.0/24 scram-sha-256\n")
        for name in ("postgres.pem", "postgres.key"):
            shutil.copy(os.path.join(self.tls_dir, name), self.dir)
            shutil.chown(os.path.join(self.dir, name), "postgres", "postgres")
        options = (f"-c listen_addresses={address('postgres')} -p 5432 -k {self.dir} -c max_connections=200 -c fsync=off "
                   f"-c ssl=on -c ssl_cert_file={self.dir}/postgres.pem -c ssl_key_file={self.dir}/postgres.key")
        run(in_host("postgres", as_user("postgres", [f"{self.bin}/pg_ctl", "-D", self.dir, "-l", f"{self.dir}/server.log",
                                                     "-w", "-t", "60", "-o", options, "start"])))
        psql = as_user("postgres", [f"{self.bin}/psql", "-h", self.dir, "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-d", "postgres"])
        run(psql + ["-c", "CREATE ROLE herald LOGIN PASSWORD 'herald'"])
        run(psql + ["-c", "CREATE DATABASE herald OWNER herald"])
        log(f"PostgreSQL on postgres:5432 (TLS), data in {self.dir}")

    def stop(self):
        if os.path.exists(os.path.join(self.dir, "postmaster.pid")):
            run(in_host("postgres", as_user("postgres", [f"{self.bin}/pg_ctl", "-D", self.dir, "-m", "fast", "-w", "stop"])), check=False)


class Stack:
    """The provider sandbox on the sandbox host and the services on theirs."""

    def __init__(self, run_dir, bin_dir, tls_dir):
        self.run_dir, self.bin_dir, self.tls_dir = run_dir, bin_dir, tls_dir
        self.processes = {}
        self.keys = {"demo": secrets.token_hex(24), "demo-chat": secrets.token_hex(24)}
        os.makedirs(os.path.join(run_dir, "logs"), exist_ok=True)

    def spawn(self, name, host, environment):
        data = os.path.join(self.run_dir, "data", name)
        os.makedirs(data, exist_ok=True)
        log_file = open(os.path.join(self.run_dir, "logs", f"{name}.log"), "a")
        environment = {"HERALD_DATA_DIR": data, "HERALD_LOG_FORMAT": "text", **environment}
        argv = in_host(host, ["env"] + [f"{k}={v}" for k, v in environment.items()] + [os.path.join(self.bin_dir, name)])
        self.processes[name] = subprocess.Popen(argv, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, name, seconds=90):
        host, port = SERVICES.get(name, ("sandbox", 8090))
        url = f"http://{address(host)}:{OPS_PORTS.get(name, port)}/readyz"
        deadline = time.time() + seconds
        while not ready(url):
            if self.processes[name].poll() is not None:
                raise RuntimeError(f"{name} exited; see {self.run_dir}/logs/{name}.log")
            if time.time() > deadline:
                raise RuntimeError(f"{name} not ready within {seconds} s; see {self.run_dir}/logs/{name}.log")
            time.sleep(0.5)

    def start(self):
        sandbox_dir = os.path.join(self.run_dir, "sandbox")
        self.spawn("herald-sandbox", "sandbox", {
            "HERALD_HTTP_HOST": address("sandbox"), "HERALD_HTTP_PORT": "8090", "HERALD_SANDBOX_HTTPS_PORT": "8443",
            "HERALD_SANDBOX_DIR": sandbox_dir, "HERALD_SANDBOX_HOSTNAMES": "sandbox",
            "HERALD_SANDBOX_INBOX_CAPACITY": "2000000", "HERALD_LOG_LEVEL": "warning"})
        self.wait_ready("herald-sandbox")
        config = os.path.join(self.run_dir, "herald.yaml")
        with open(os.path.join(self.run_dir, "webhook-secret"), "w") as secret:
            secret.write("whsec_" + base64.b64encode(os.urandom(32)).decode() + "\n")
        with open(config, "w") as yaml:
            yaml.write(self.apps_yaml(sandbox_dir))
        for name, (host, port) in SERVICES.items():
            urls = ",".join(f"amqps://herald:herald@{b}:5671/" for b in BROKER_ORDER[host])
            environment = {
                "HERALD_AMQP_URL": urls, "HERALD_AMQP_CA_FILE": os.path.join(self.tls_dir, "ca.pem"),
                "HERALD_QUORUM_REPLICAS": "3", "HERALD_HTTP_HOST": "0.0.0.0", "HERALD_HTTP_PORT": str(port),
                "HERALD_CONFIG": config, "HERALD_LOG_LEVEL": "info"}
            if name in OPS_PORTS:
                environment["HERALD_OPS_PORT"] = str(OPS_PORTS[name])
            if name in ("herald-registration", "herald-preferences"):
                environment["HERALD_DATABASE_URL"] = "postgres://herald:herald@postgres:5432/herald?sslmode=verify-full"
                environment["HERALD_DATABASE_CA_FILE"] = os.path.join(self.tls_dir, "ca.pem")
            self.spawn(name, host, environment)
        for name in SERVICES:
            self.wait_ready(name)
        log("the services are ready: " + ", ".join(f"{n.removeprefix('herald-')} on {h}" for n, (h, _) in SERVICES.items()))

    def apps_yaml(self, sandbox_dir):
        digest = {app: hashlib.sha256(key.encode()).hexdigest() for app, key in self.keys.items()}
        endpoint = "https://sandbox:8443"
        return f"""# Written by scripts/partition-check: the apps, sending through the sandbox host.
apps:
  demo:
    apiKeys:
      - id: demo
        sha256: {digest['demo']}
        scopes: [events, devices, admin]
    fcm:
      serviceAccountFile: "{sandbox_dir}/fcm-service-account.json"
      endpoint: "{endpoint}"
      caFile: "{sandbox_dir}/ca.pem"
    hms:
      appId: "100000001"
      clientId: "100000001"
      clientSecretFile: "{sandbox_dir}/hms-client-secret"
      endpoint: "{endpoint}"
      tokenEndpoint: "{endpoint}/oauth2/v3/token"
      caFile: "{sandbox_dir}/ca.pem"
    apns:
      teamId: "HERALDDEMO"
      keyId: "DEMOKEY001"
      keyFile: "{sandbox_dir}/apns-key.p8"
      topic: "app.herald.demo"
      environment: "development"
      endpoint: "{endpoint}"
      caFile: "{sandbox_dir}/ca.pem"
  demo-chat:
    apiKeys:
      - id: demo-chat
        sha256: {digest['demo-chat']}
        scopes: [events, devices, admin]
    delivery:
      mode: webhook
      url: http://sandbox:8090/webhooks/demo-chat
      signingSecretFile: {self.run_dir}/webhook-secret
      allowPrivateNetworks: true
"""

    def not_ready(self):
        """The services that do not answer ready now."""
        return [name for name, (host, port) in SERVICES.items()
                if not ready(f"http://{address(host)}:{OPS_PORTS.get(name, port)}/readyz", timeout=3)]

    def exited(self):
        return {name: process.returncode for name, process in self.processes.items() if process.poll() is not None}

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(40)
            except subprocess.TimeoutExpired:
                process.kill()


def ready(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status == 200
    except OSError:
        return False


class Gateway:
    """Calls to the gateway on services-1, one keep-alive connection per thread."""

    def __init__(self, keys):
        self.keys = keys
        self.local = threading.local()

    def call(self, method, path, body, app="demo", timeout=35):
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = http.client.HTTPConnection(address("services-1"), 8080, timeout=timeout)
        try:
            connection.request(method, f"/v1/apps/{app}{path}", json.dumps(body),
                               {"Authorization": f"Bearer {self.keys[app]}", "Content-Type": "application/json"})
            answer = connection.getresponse()
            text = answer.read()
            return answer.status, text
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            self.local.connection = None
            return None, str(error).encode()


def push_id(platform, index):
    return f"pc-{platform}-{index}"


def register_devices(gateway):
    for platform in PLATFORMS:
        for index in range(DEVICES_PER_PLATFORM):
            token = f"pc-{platform}-token-{index}"
            app = "demo-chat" if platform == "webhook" else "demo"
            if platform == "hms":
                call = ("PUT", f"/devices/{token}", {"platform": "hms", "token": token, "os": "android", "pushIds": [push_id(platform, index)]})
            elif platform == "apns":
                call = ("POST", "/smartid/devices", {"profileID": [push_id(platform, index)], "OS": "iOS",
                                                      "deviceID": hashlib.sha256(token.encode()).hexdigest()})
            else:
                call = ("POST", "/smartid/devices", {"profileID": [push_id(platform, index)], "OS": "Android", "deviceID": token})
            status, text = gateway.call(*call, app=app)
            if status is None or status >= 300:
                raise RuntimeError(f"registering {token}: {status} {text[:200]!r}")
    log(f"registered {DEVICES_PER_PLATFORM} devices each for {', '.join(PLATFORMS)}")


class Load:
    """Smart ID pushes at `rate` events/s, a quarter to each platform's devices. A request
    that fails or gets no answer is sent again with the same messageId (the gateway's event
    id is deterministic, so a retry is idempotent), as an upstream would, for up to
    `give_up` seconds; the event counts as accepted once a 2xx comes back."""

    def __init__(self, gateway, history, tag, rate, give_up=120):
        self.gateway, self.history, self.tag, self.rate, self.give_up = gateway, history, tag, rate, give_up
        self.accepted = {}
        self.refused = {}
        self.lock = threading.Lock()
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=256)
        self.futures = []
        self.sequence = 0

    def send(self, message_id, platform, index):
        app = "demo-chat" if platform == "webhook" else "demo"
        body = {"messageId": message_id, "pushId": push_id(platform, index), "requestor": "Partition check",
                "type": "AUTH", "timeToLive": 3600}
        first = time.time()
        attempts = 0
        last = None
        while True:
            attempts += 1
            status, text = self.gateway.call("POST", "/smartid/push", body, app=app)
            if status is not None and status < 300:
                answered = time.time()
                with self.lock:
                    self.accepted[message_id] = answered
                self.history.write("accepted", id=message_id, platform=platform, sent=round(first, 3), attempts=attempts, status=status)
                return
            last = status if status is not None else text.decode(errors="replace")[:80]
            if status is not None and 400 <= status < 500 and status not in (408, 429):
                break
            if time.time() - first > self.give_up:
                break
            time.sleep(1)
        with self.lock:
            self.refused[message_id] = last
        self.history.write("refused", id=message_id, platform=platform, sent=round(first, 3), attempts=attempts, last=str(last))

    def run_for(self, seconds):
        """Sends for `seconds`, paced; returns without waiting for the answers."""
        start = time.time()
        count = int(seconds * self.rate)
        for n in range(count):
            due = start + n / self.rate
            pause = due - time.time()
            if pause > 0:
                time.sleep(pause)
            self.sequence += 1
            platform = PLATFORMS[self.sequence % len(PLATFORMS)]
            message_id = f"{self.tag}-{self.sequence}"
            try:
                self.futures.append(self.pool.submit(self.send, message_id, platform, self.sequence % DEVICES_PER_PLATFORM))
            except RuntimeError:  # the run is stopping
                return

    def finish(self):
        """Waits for every request's final answer."""
        for future in self.futures:
            future.result()
        self.pool.shutdown()


def sandbox_receipts(tag):
    """{message id: [received at, ...]} of every push and webhook forward of ids with `tag`."""
    found = collections.defaultdict(list)
    with urllib.request.urlopen(f"http://{address('sandbox')}:8090/sandbox/receipts", timeout=120) as answer:
        for line in answer.read().decode().splitlines():
            millis, provider, event = line.split(" ", 2)
            message_id = event.split(":", 1)[-1]
            if message_id.startswith(tag + "-"):
                found[message_id].append((int(millis) / 1000, provider))
    return found


class Fault:
    """A fault: what it does to the network, when, and for how long."""

    def __init__(self, name, description, steps):
        # steps: (seconds after the fault's start, callable returning a text) in time order;
        # the last step heals everything.
        self.name, self.description, self.steps = name, description, steps


def busiest_broker(brokers):
    """The node most client connections are on."""
    connections = brokers.connections()
    return max(BROKERS, key=lambda host: sum(connections[host].values()))


def node_of(brokers, client_host):
    """The node most of `client_host`'s connections are on."""
    connections = brokers.connections()
    return max(BROKERS, key=lambda host: connections[host].get(client_host, 0))


def faults(network, brokers, python):
    """The faults of a run, in order; each chooses its target when it starts, from where the
    connections are then."""
    def peers(node):
        return [other for other in BROKERS if other != node]

    def minority():
        node = busiest_broker(brokers)
        for other in peers(node):
            network.cut(node, other)
        return f"{node} (the node with most client connections) cut from the other two; the services still reach it"

    def host_from_its_node():
        node = node_of(brokers, "services-1")
        network.cut("services-1", node)
        return f"services-1 cut from {node}, the node most of its connections were on"

    def asymmetric():
        node = busiest_broker(brokers)
        for other in peers(node):
            network.drop_arriving(other, node)
        return f"what {node} (the node with most client connections) sends its peers is lost; it hears them"

    def lossy():
        how = network.impair("services-2", 0.2, 0.2, python)
        return f"services-2's link (the dispatchers): 20 % loss and 200 ms delay each way, by {how}"

    def postgres():
        network.cut("services-1", "postgres")
        return "services-1 (registration, preferences) cut from postgres"

    def heal():
        network.heal()
        return "healed"

    def heal_minority_only():
        # The overlap's first fault ends; the second goes on.
        network.heal()
        network.cut("services-1", "postgres")
        return "the minority partition healed; postgres still cut"

    return [
        # 60 s: long enough for the nodes to tell the partition while it lasts (net_ticktime
        # 15: within 11 to 19 s), so the minority node pauses and closes its clients' connections.
        Fault("broker-minority", "a broker node partitioned from the other two", [(0, minority), (60, heal)]),
        Fault("host-from-its-node", "a service host partitioned from the node it is connected to",
              [(0, host_from_its_node), (30, heal)]),
        Fault("asymmetric", "an asymmetric partition between broker nodes", [(0, asymmetric), (30, heal)]),
        Fault("lossy-link", "20 % loss and 200 ms delay on the dispatchers' link", [(0, lossy), (40, heal)]),
        Fault("postgres-cut", "the link to PostgreSQL cut", [(0, postgres), (30, heal)]),
        Fault("overlap", "a minority partition, and the PostgreSQL link cut 15 s into it",
              [(0, minority), (15, postgres), (35, heal_minority_only), (50, heal)]),
    ]


class Checker:
    """Runs each fault under load and checks what came of every accepted event."""

    def __init__(self, args, network, brokers, stack, gateway, history):
        self.args, self.network, self.brokers, self.stack, self.gateway, self.history = \
            args, network, brokers, stack, gateway, history
        self.consumed = None
        self.webhooks = None

    def queues_settled(self):
        """The work queues are empty and have the consumers they had at the start."""
        queues = self.brokers.queues()
        if queues is None:
            return False, "no node lists the queues"
        work = {name: value for name, value in queues.items() if value[2] == "quorum"}
        if self.consumed is None:
            self.consumed = {name for name, (_, consumers, _) in work.items() if consumers > 0}
        busy = [f"{name}: {messages}" for name, (messages, _, _) in work.items() if messages > 0]
        idle = [name for name in self.consumed if work.get(name, (0, 0, ""))[1] == 0]
        if busy or idle:
            return False, "; ".join(busy + [f"{name} has no consumer" for name in idle])
        return True, ""

    def dead_letters(self):
        queues = self.brokers.queues()
        return None if queues is None else queues.get("dead-letters", (0, 0, ""))[0]

    def mend_cluster(self, healed):
        """Waits for the cluster to be whole again by itself, up to --cluster-bound seconds
        after the heal; past that, restarts the nodes that did not rejoin, as an operator
        would (docs/operations.md), and says so. RabbitMQ 3.10 can leave a paused node stuck
        in its restart, or a cluster split after a partition it noticed only as it ended."""
        deadline = healed + self.args.cluster_bound
        while True:
            views = self.brokers.views()
            split = self.brokers.split(views)
            if not split:
                return f"whole by itself {time.time() - healed:.0f} s after the heal"
            if time.time() > deadline:
                break
            time.sleep(3)
        stopped = [host for host in BROKERS if views[host][0] is None]
        if not stopped:
            fewest = min(len(views[host][0]) for host in split)
            stopped = [host for host in split if len(views[host][0]) == fewest]
        for host in stopped:
            log(f"  the cluster is not whole {self.args.cluster_bound} s after the heal: restarting rabbit@{host}")
            self.brokers.restart_node(host)
        self.history.write("mended", nodes=stopped, views={h: v[0] for h, v in views.items()})
        return f"split after {self.args.cluster_bound} s: restarted {', '.join(stopped)}"

    def settle(self, seconds=180):
        """Waits until the cluster is whole, every service ready and the queues settled."""
        deadline = time.time() + seconds
        why = ""
        while time.time() < deadline:
            if not self.brokers.healthy():
                why = "the cluster is not whole"
            elif self.stack.not_ready():
                why = "not ready: " + ", ".join(self.stack.not_ready())
            else:
                settled, why = self.queues_settled()
                if settled:
                    return True, ""
            time.sleep(2)
        return False, why

    def run_fault(self, fault):
        args = self.args
        settled, why = self.settle()
        if not settled:
            raise RuntimeError(f"before {fault.name}: {why}")
        dead_before = self.dead_letters()
        tag = f"{args.tag}-{fault.name}"
        load = Load(self.gateway, self.history, tag, args.rate)
        duration = fault.steps[-1][0]
        log(f"{fault.name}: {fault.description}; {args.rate} events/s from {args.lead} s before to {args.trail} s after")
        loader = threading.Thread(target=load.run_for, args=(args.lead + duration + args.trail,), daemon=True)
        loader.start()
        time.sleep(args.lead)
        started = time.time()
        self.history.write("fault", name=fault.name, event="start")
        actions = []
        for offset, step in fault.steps:
            pause = started + offset - time.time()
            if pause > 0:
                time.sleep(pause)
            text = step()
            actions.append((round(time.time() - started, 1), text))
            self.history.write("fault", name=fault.name, event="step", offset=offset, action=text)
            log(f"  +{offset:>2} s  {text}")
        healed = time.time()
        # Recovery: every service ready, every work queue consumed, from the heal on.
        recovered = {}
        deadline = healed + args.recovery_bound * 3
        while time.time() < deadline and len(recovered) < 2:
            if "ready" not in recovered and not self.stack.not_ready():
                recovered["ready"] = time.time() - healed
            if "consumers" not in recovered:
                queues = self.brokers.queues()
                if queues is not None and all(queues.get(name, (0, 0, ""))[1] > 0 for name in self.consumed):
                    recovered["consumers"] = time.time() - healed
            time.sleep(1)
        loader.join()
        load.finish()
        accepted = dict(load.accepted)
        # Delivery: wait until every accepted event reached the sandbox.
        deadline = time.time() + args.drain
        while True:
            receipts = sandbox_receipts(tag)
            missing = [i for i in accepted if i not in receipts]
            if not missing or time.time() > deadline:
                break
            time.sleep(2)
        before_heal = [i for i in accepted if accepted[i] <= healed]
        last_of_before = max((min(t for t, _ in receipts[i]) for i in before_heal if i in receipts), default=healed)
        recovered["delivered"] = max(0.0, last_of_before - healed)
        duplicates = {i: sorted(receipts[i]) for i in accepted if len(receipts.get(i, [])) > 1}
        unasked = [i for i in receipts if i not in accepted]
        for message_id, times in receipts.items():
            for at, provider in times:
                self.history.write("delivered", id=message_id, provider=provider, received=round(at, 3))
        cluster = self.mend_cluster(healed)
        settled, why = self.settle()
        dead_after = self.dead_letters()
        self.webhooks = None
        traced = {i: self.trace(i, times, started, healed, recovered) for i, times in duplicates.items()}
        causes = collections.Counter(traced.values())
        row = {
            "fault": fault.name, "description": fault.description, "actions": actions,
            "accepted": len(accepted), "refused": len(load.refused), "delivered": sum(1 for i in accepted if i in receipts),
            "lost": len(missing), "lost_ids": sorted(missing)[:20],
            "duplicates": sum(len(t) - 1 for t in duplicates.values()), "duplicate_causes": dict(causes),
            "delivered_unacknowledged": len(unasked),
            "dead_lettered": None if dead_before is None or dead_after is None else dead_after - dead_before,
            "recovery_seconds": {k: round(v, 1) for k, v in recovered.items()},
            "recovery": round(max(recovered.values()), 1) if len(recovered) == 3 else None,
            "cluster": cluster, "settled": settled, "unsettled_because": why,
        }
        for message_id, times in duplicates.items():
            self.history.write("duplicate", id=message_id, receipts=[round(t, 3) for t, _ in times], cause=traced[message_id])
        self.history.write("result", **row)
        log(f"  {row['accepted']} accepted, {row['delivered']} delivered, {row['lost']} lost, {row['duplicates']} duplicates "
            f"{dict(causes) or ''}, dead-lettered {row['dead_lettered']}, recovery {row['recovery_seconds']}")
        return row

    def trace(self, message_id, times, started, healed, recovered):
        """Why an event was pushed more than once, from the dispatcher's log. A webhook
        forward is found by its webhook-id (the delivery id the dispatcher logs): a send the
        receiver got but whose answer the dispatcher lost (a TRANSPORT error, sent again) is
        named so. Otherwise a push whose first copy came between the fault's start and the
        end of the recovery was in flight when the fault hit; any other is unexplained."""
        provider = times[0][1]
        if provider == "webhook":
            delivery = self.webhook_ids().get(message_id)
            lines = [line for line in self.log_lines("herald-webhook") if f"deliveryId={delivery}" in line] if delivery else []
            if any("code=TRANSPORT" in line and "retried" in line for line in lines):
                return "webhook: received, the answer lost on the link (TRANSPORT), sent again"
        first = times[0][0]
        if started - 5 <= first <= healed + max(recovered.values(), default=0) + 5:
            return f"{provider}: in flight during the fault"
        return "outside any fault"

    def webhook_ids(self):
        """{message id: webhook-id} of the receiver's forwards, read once per fault."""
        if self.webhooks is None:
            with urllib.request.urlopen(f"http://{address('sandbox')}:8090/sandbox/webhooks", timeout=120) as answer:
                listed = json.loads(answer.read())["webhooks"]
            self.webhooks = {}
            for forward in listed:
                body = forward.get("body")
                event = (body.get("data") or {}).get("eventId", "") if isinstance(body, dict) else ""
                self.webhooks[event.split(":", 1)[-1]] = forward.get("webhookId")
        return self.webhooks

    def log_lines(self, service):
        with open(os.path.join(self.stack.run_dir, "logs", f"{service}.log"), errors="replace") as log_file:
            return log_file.readlines()


def print_table(rows):
    header = (f"{'fault':<20} {'accepted':>8} {'delivered':>9} {'lost':>5} {'dupl.':>6} {'dead':>5} {'recovery s':>10}  "
              f"{'the cluster':<34} duplicates' causes")
    print(header)
    print("-" * len(header))
    for row in rows:
        causes = ", ".join(f"{n} {c}" for c, n in row["duplicate_causes"].items()) or "-"
        recovery = "-" if row["recovery"] is None else f"{row['recovery']:.1f}"
        print(f"{row['fault']:<20} {row['accepted']:>8} {row['delivered']:>9} {row['lost']:>5} {row['duplicates']:>6} "
              f"{row['dead_lettered'] if row['dead_lettered'] is not None else '?':>5} {recovery:>10}  "
              f"{row['cluster'].replace(' after the heal', ''):<34} {causes}")


def deployed_cluster_settings():
    """The partition settings deploy/make-secrets.sh gives the compose cluster
    (cluster_partition_handling, net_ticktime), so the test hosts' nodes run as a deployed
    cluster does."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "make-secrets.sh")
    with open(script) as text:
        return dict(re.findall(r"(cluster_partition_handling|net_ticktime) = (\w+)", text.read()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--python", required=True, help="a Python with NetfilterQueue, for link_impairment.py")
    parser.add_argument("--rate", type=int, default=200, help="events/s during each fault (default 200)")
    parser.add_argument("--faults", default="", help="comma-separated names; default all")
    parser.add_argument("--lead", type=int, default=10, help="seconds of load before each fault")
    parser.add_argument("--trail", type=int, default=10, help="seconds of load after each heal")
    parser.add_argument("--drain", type=int, default=300, help="seconds to wait for the last deliveries")
    parser.add_argument("--recovery-bound", type=int, default=60, help="seconds: the recovery bound checked")
    parser.add_argument("--cluster-bound", type=int, default=120,
                        help="seconds after a heal the cluster has to be whole by itself before a node that did not rejoin is restarted")
    parser.add_argument("--partition-handling", help="the nodes' cluster_partition_handling (default: the compose cluster's)")
    parser.add_argument("--net-ticktime", help="the nodes' net_ticktime (default: the compose cluster's)")
    parser.add_argument("--history-dir", default=".build/partition-check")
    parser.add_argument("--output", help="write the rows as JSON here")
    parser.add_argument("--keep", action="store_true", help="leave the hosts up at the end (for a look)")
    args = parser.parse_args()
    args.tag = time.strftime("pc%H%M%S")
    deployed = deployed_cluster_settings()
    args.partition_handling = args.partition_handling or deployed.get("cluster_partition_handling", "ignore")
    args.net_ticktime = args.net_ticktime or deployed.get("net_ticktime", "60")
    known = [fault.name for fault in faults(None, None, None)]
    unknown = [name for name in args.faults.split(",") if name and name not in known]
    if unknown:
        parser.error(f"no fault {', '.join(unknown)}; the faults are {', '.join(known)}")
    os.makedirs(args.history_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    history = History(os.path.join(args.history_dir, f"history-{stamp}.jsonl"))
    run_dir = os.path.join("/tmp", f"herald-partition-{stamp}")
    os.makedirs(run_dir)
    os.chmod(run_dir, 0o755)
    network, stack, brokers, postgres = Network(), None, None, None
    started = time.time()
    rows = []
    failed = None

    def stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        log(f"test hosts on {BRIDGE} ({NET}.0/24); run folder {run_dir}; history {history.path}")
        network.create()
        tls_dir = os.path.join(run_dir, "tls")
        make_tls(tls_dir)
        brokers = Brokers(run_dir, tls_dir, args.partition_handling, args.net_ticktime)
        brokers.start()
        postgres = Postgres(run_dir, tls_dir)
        postgres.start()
        stack = Stack(run_dir, args.bin_dir, tls_dir)
        stack.start()
        gateway = Gateway(stack.keys)
        register_devices(gateway)
        checker = Checker(args, network, brokers, stack, gateway, history)
        history.write("run", tag=args.tag, rate=args.rate, partition_handling=args.partition_handling, net_ticktime=args.net_ticktime,
                      hosts={name: address(name) for name in HOSTS}, services={n: h for n, (h, _) in SERVICES.items()})
        chosen = [f for f in faults(network, brokers, args.python) if not args.faults or f.name in args.faults.split(",")]
        for fault in chosen:
            rows.append(checker.run_fault(fault))
            exited = stack.exited()
            if exited:
                raise RuntimeError(f"services exited: {exited}")
    except Exception as error:  # noqa: BLE001 - reported, then everything is stopped
        failed = f"{type(error).__name__}: {error}"
        log(f"stopped: {failed}")
    except KeyboardInterrupt:
        failed = "interrupted"
    finally:
        try:
            network.heal()
        except Exception:  # noqa: BLE001
            pass
        logs = os.path.join(args.history_dir, f"logs-{stamp}")
        if os.path.isdir(os.path.join(run_dir, "logs")):
            shutil.copytree(os.path.join(run_dir, "logs"), logs)
        if not args.keep:
            if stack:
                stack.stop()
            if brokers:
                brokers.stop()
            if postgres:
                postgres.stop()
            network.destroy()
            shutil.rmtree(run_dir, ignore_errors=True)
    minutes = (time.time() - started) / 60
    if rows:
        print()
        print_table(rows)
    bad = [r["fault"] for r in rows if r["lost"] or r["dead_lettered"] or not r["settled"] or r["recovery"] is None
           or r["recovery"] > args.recovery_bound or r["duplicate_causes"].get("outside any fault")]
    summary = {"minutes": round(minutes, 1), "rate": args.rate, "recovery_bound": args.recovery_bound,
               "partition_handling": args.partition_handling, "net_ticktime": args.net_ticktime, "rows": rows, "failed": failed, "bad": bad,
               "history": history.path, "logs": logs}
    history.write("summary", **summary)
    history.close()
    if args.output:
        with open(args.output, "w") as out:
            json.dump(summary, out, indent=2)
            out.write("\n")
    print(f"\n{len(rows)} faults in {minutes:.1f} minutes; history {history.path}; services' logs {logs}")
    if failed or bad:
        print(f"FAILED: {failed or ''} {', '.join(bad)}")
        sys.exit(1)
    print(f"every accepted event was delivered; recovery within {args.recovery_bound} s after every heal")


if __name__ == "__main__":
    main()
