"""Writes a CloudEvent in the HTTP binding's structured mode with CloudEvents' own SDK, as an
upstream's producer would: the request (a JSON file, first argument) gives its attributes and
data (`data`, or `binary` as base64 for bytes); prints {"headers", "body"}."""
import base64
import json
import sys

from cloudevents.conversion import to_structured
from cloudevents.http import CloudEvent

with open(sys.argv[1]) as file:
    request = json.load(file)
data = base64.b64decode(request["binary"]) if "binary" in request else request.get("data")
event = CloudEvent(request["attributes"], data)
headers, body = to_structured(event)
print(json.dumps({"headers": dict(headers), "body": body.decode()}))
