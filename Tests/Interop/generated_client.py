"""Drives Herald's gateway with a client generated from its own OpenAPI document by
openapi-python-client (from PyPI): what an integrator gets from the document alone.

    python3 generated_client.py <generated package's parent directory> <gateway URL> <app> <api key>

Registers a phone, posts an event to its user, waits (60 s at most) for the event to be
listed as delivered, finds the phone by the end of its token, and reads the stats; prints
what it saw as JSON, or exits 1 naming the step that failed.
"""
import json
import sys
import time
import uuid

sys.path.insert(0, sys.argv[1])
gateway, app, key = sys.argv[2], sys.argv[3], sys.argv[4]

from herald_client import AuthenticatedClient  # noqa: E402
from herald_client.api.default import get_stats, list_devices, list_events, post_event, put_device  # noqa: E402
from herald_client.models import (  # noqa: E402
    DevicePage, DeviceReply, Event, EventPage, EventProgress, StatsReply, PutDeviceBody, PutDeviceBodyOs, PutDeviceBodyPlatform,
)


def fail(step, answer):
    print(json.dumps({"failed": step, "answer": repr(answer)}))
    sys.exit(1)


client = AuthenticatedClient(base_url=gateway, token=key, raise_on_unexpected_status=True)
token = "py-" + uuid.uuid4().hex + uuid.uuid4().hex
device = put_device.sync(app=app, device_id="py-phone", client=client, body=PutDeviceBody(
    token=token, os=PutDeviceBodyOs.ANDROID, platform=PutDeviceBodyPlatform.FCM, user_id="py-user"))
if not isinstance(device, DeviceReply):
    fail("putDevice", device)

event_id = uuid.uuid4().hex
accepted = post_event.sync(app=app, client=client, body=Event.from_dict({
    "id": event_id, "source": "api", "kind": "chat.message", "audience": {"users": ["py-user"]},
    "alert": {"title": "Hello", "body": "from a generated client"},
}))
if getattr(accepted, "event_id", None) != "api:" + event_id:
    fail("postEvent", accepted)

listed = None
deadline = time.monotonic() + 60
while time.monotonic() < deadline and listed is None:
    page = list_events.sync(app=app, client=client, status=EventProgress.DELIVERED, limit=200)
    if not isinstance(page, EventPage):
        fail("listEvents", page)
    listed = next((e for e in page.events if e.event_id == "api:" + event_id), None)
    if listed is None:
        time.sleep(0.2)
if listed is None:
    fail("listEvents: the event listed as delivered", None)

found = list_devices.sync(app=app, client=client, token_suffix=token[-12:])
if not isinstance(found, DevicePage) or len(found.devices) != 1:
    fail("listDevices by token suffix", found)
phone = found.devices[0]

stats = get_stats.sync(app=app, client=client, window="15m")
if not isinstance(stats, StatsReply):
    fail("getStats", stats)

print(json.dumps({
    "registeredToken": device.device.registration.token,
    "eventStatus": listed.status.value,
    "deliveries": listed.deliveries,
    "delivered": listed.counts.delivered,
    "deviceId": phone.registration.device_id,
    "deviceToken": phone.registration.token,
    "lastOutcome": phone.last_outcome.status.value,
    "statsDelivered": stats.stats.totals.delivered,
    "token": token,
}))
