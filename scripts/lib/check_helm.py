"""Validates Herald's Helm chart without a cluster (scripts/check-helm).

Helm's engine (helm-python-sdk: Helm 4's Go SDK) lints and renders the chart with its default
values and each file of its ci/ folder; kubernetes-validate checks every object against the
Kubernetes OpenAPI schemas (strict: unknown fields fail); then Herald's own promises."""

import pathlib
import sys

import helm_python as helm
import kubernetes_validate
import yaml

KUBERNETES = "1.33.0"
OPS_PORT = 9080

chart_dir = pathlib.Path(sys.argv[1])
# The chart's table of services (generated from herald's manifest by scripts/generate, which
# scripts/test checks is current): one Deployment and Service each, an HPA per autoscaled
# dispatcher.
_table = (chart_dir / "templates" / "_helpers.tpl").read_text().split('{{- define "herald.services" -}}')[1].split("{{- end -}}")[0]
_services = {name: entry for name, entry in (yaml.safe_load("\n".join(line for line in _table.splitlines() if not line.startswith("{{"))) or {}).items()}
SERVICES = set(_services)
DISPATCHERS = {name for name, entry in _services.items() if entry["dispatcher"]}
problems: list[str] = []


def problem(text: str) -> None:
    problems.append(text)


def settings(merged: dict, name: str) -> dict:
    """A service's values: its own, or for a dispatcher the values' dispatcherDefaults."""
    return merged["services"].get(name) or merged["dispatcherDefaults"]


def render(values: dict | None, label: str) -> list[dict]:
    chart = helm.Chart.load(chart_dir)
    chart.validate_schema(values)
    manifests = chart.render(values, name="herald", namespace="push", is_install=True)
    objects = []
    for path, text in sorted(manifests.items()):
        if not path.endswith(".yaml"):
            continue
        for document in yaml.safe_load_all(text):
            if document:
                document["__source"] = f"{label}: {path}"
                objects.append(document)
    return objects


def check(objects: list[dict], values: dict, label: str) -> None:
    merged = helm.Chart.load(chart_dir).merge_values(values)
    by_kind: dict[str, list[dict]] = {}
    for item in objects:
        source = item.pop("__source")
        try:
            kubernetes_validate.validate(item, KUBERNETES, strict=True)
        except kubernetes_validate.ValidationError as error:
            problem(f"{source}: {item['kind']} {item['metadata']['name']}: {error.message} at {list(error.path)}")
        by_kind.setdefault(item["kind"], []).append(item)

    deployments = {d["metadata"]["labels"]["app.kubernetes.io/component"]: d for d in by_kind.get("Deployment", [])}
    if set(deployments) != SERVICES:
        problem(f"{label}: Deployments for {sorted(deployments)}, expected {sorted(SERVICES)}")
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        container = pod["containers"][0]
        if container["args"] != [f"herald-{name}"]:
            problem(f"{label}: {name} runs {container['args']}")
        readiness = container.get("readinessProbe", {}).get("httpGet", {})
        if readiness.get("path") != "/readyz":
            problem(f"{label}: {name} has no readiness probe on /readyz")
        if not pod.get("securityContext", {}).get("runAsNonRoot"):
            problem(f"{label}: {name} may run as root")
        secret_volumes = {v["name"]: v for v in pod["volumes"] if "secret" in v}
        if "secrets" not in secret_volumes or "amqp" not in secret_volumes:
            problem(f"{label}: {name} does not mount its files and the broker password from Secrets")
        environment = {e["name"]: e.get("value") for e in container["env"]}
        if "HERALD_AMQP_PASSWORD_FILE" not in environment or ":" in environment["HERALD_AMQP_URL"].split("@")[0].split("//")[1]:
            problem(f"{label}: {name} must read the broker password from a file, not the URL")
        # TLS: an amqps:// broker or a database with a CA Secret gets that CA mounted and named.
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        for setting, values_key, folder in (("HERALD_AMQP_CA_FILE", "amqp", "/etc/herald/amqp-ca"), ("HERALD_DATABASE_CA_FILE", "database", "/etc/herald/database-ca")):
            wanted = bool(merged[values_key]["caSecret"]["name"]) and (values_key == "amqp" or "HERALD_DATABASE_URL" in environment)
            if wanted != (environment.get(setting) == f"{folder}/ca.pem") or wanted != (folder in mounts and mounts[folder] in secret_volumes):
                problem(f"{label}: {name}: {setting} and its Secret at {folder} go together, exactly when {values_key}.caSecret names one")
        autoscaled = name in DISPATCHERS and settings(merged, name)["autoscaling"]["enabled"]
        if autoscaled == ("replicas" in deployment["spec"]):
            problem(f"{label}: {name}: replicas must be left to the HPA exactly when it is autoscaled")

    hpas = {h["spec"]["scaleTargetRef"]["name"].rsplit("-", 1)[1] for h in by_kind.get("HorizontalPodAutoscaler", [])}
    expected = {n for n in DISPATCHERS if settings(merged, n)["autoscaling"]["enabled"]}
    if hpas != expected:
        problem(f"{label}: HPAs for {sorted(hpas)}, expected {sorted(expected)}")
    if merged["queueDepthScaling"]["enabled"]:
        for hpa in by_kind.get("HorizontalPodAutoscaler", []):
            if not any(m["type"] == "External" for m in hpa["spec"]["metrics"]):
                problem(f"{label}: HPA {hpa['metadata']['name']} does not scale on queue depth")

    for service in by_kind.get("Service", []):
        ports = {p["port"] for p in service["spec"]["ports"]}
        if OPS_PORT in ports and service["spec"].get("type", "ClusterIP") != "ClusterIP":
            problem(f"{label}: Service {service['metadata']['name']} publishes the operations port beyond the cluster")
    for ingress in by_kind.get("Ingress", []):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                if backend["name"].endswith("-ops") or backend["port"].get("number") == OPS_PORT:
                    problem(f"{label}: Ingress {ingress['metadata']['name']} routes to the operations port")
    print(f"  {label}: {len(objects)} objects valid for Kubernetes {KUBERNETES}: "
          + ", ".join(f"{len(v)} {k}" for k, v in sorted(by_kind.items())))


print(f"check-helm: {chart_dir} with Helm {helm.helm_sdk_version()} (helm-python-sdk), kubernetes-validate {kubernetes_validate.__version__}")
cases: list[tuple[str, dict]] = [("default values", {})]
for path in sorted((chart_dir / "ci").glob("*.yaml")):
    cases.append((str(path.relative_to(chart_dir)), yaml.safe_load(path.read_text()) or {}))
for label, values in cases:
    report = helm.lint(str(chart_dir), values, strict=True, kube_version=f"v{KUBERNETES}")
    for message in report.get("messages", []):
        if message.get("severity", 0) >= 2:
            problem(f"{label}: helm lint: {message.get('path')}: {message.get('error')}")
    for error in report.get("errors") or []:
        problem(f"{label}: helm lint: {error}")
    try:
        check(render(values, label), values, label)
    except helm.HelmError as error:
        problem(f"{label}: {error}")

# A dispatcher the values do not name (a provider newer than the values) runs with
# dispatcherDefaults: its Deployment is there, with their replicas.
objects = render({"services": {"callback": None}}, "a dispatcher without values")
unnamed = [d for d in objects if d["kind"] == "Deployment" and d["metadata"]["name"].endswith("-callback")]
if len(unnamed) != 1 or unnamed[0]["spec"].get("replicas") != 1:
    problem(f"a dispatcher without values: expected one Deployment with dispatcherDefaults' one replica, got {[d['spec'] .get('replicas') for d in unnamed]}")
else:
    print("  a dispatcher without values: runs with dispatcherDefaults")
# Two SQLite replicas of Registration are refused, naming the way out.
try:
    render({"database": {"url": ""}, "services": {"registration": {"replicas": 2, "resources": {}}}}, "two SQLite replicas")
    problem("two Registration replicas without database.url rendered")
except helm.HelmError as error:
    if "database.url" not in str(error):
        problem(f"two SQLite replicas: refused without naming database.url: {error}")
    else:
        print("  two SQLite replicas: refused (" + str(error).split("fail: ")[-1][:120] + ")")
# A password in the broker's URL is refused by the values' schema.
try:
    render({"amqp": {"url": "amqp://herald:secret@rabbitmq:5672/", "passwordSecret": {"name": "a", "key": "b"}}}, "password in URL")
    problem("a broker URL with a password was accepted")
except helm.HelmError:
    print("  a password in amqp.url: refused by values.schema.json")

if problems:
    print("check-helm: FAILED", file=sys.stderr)
    for text in problems:
        print("  " + text, file=sys.stderr)
    sys.exit(1)
print("check-helm: passed")
