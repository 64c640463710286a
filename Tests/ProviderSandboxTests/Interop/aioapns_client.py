"""aioapns (PyPI), an independent APNs client, against the sandbox's APNs emulator, as a
provider server would use it: token-based authentication (an ES256 JWT it signs with PyJWT
from the .p8 key), HTTP/2 over TLS, one notification per device token. aioapns dials Apple's
host: its protocol class is pointed at the sandbox instead. Reads one JSON request from the
file named by argv[1] and prints one JSON reply: each send's status, reason and timestamp."""
import asyncio
import json
import ssl
import sys

from aioapns import APNs, NotificationRequest, PushType


async def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    with open(request["keyFile"]) as f:
        key = f.read()
    context = ssl.create_default_context(cafile=request["caFile"])
    client = APNs(key=key, key_id=request["keyId"], team_id=request["teamId"], topic=request["topic"],
                  use_sandbox=True, ssl_context=context)
    protocol = client.pool.protocol_class
    # Apple's development host, here the sandbox.
    client.pool.protocol_class = type("SandboxProtocol", (protocol,), {
        "APNS_SERVER": request["host"], "APNS_PORT": request["port"]})
    results = []
    for token in request["tokens"]:
        notification = NotificationRequest(
            device_token=token,
            message={"aps": {"alert": {"title": "Hello", "body": "from aioapns"}}, "event": "aioapns-1"},
            priority=10, push_type=PushType.ALERT, time_to_live=60, collapse_key="greeting")
        result = await client.send_notification(notification)
        results.append({"token": token, "status": int(result.status), "reason": result.description,
                        "timestamp": result.timestamp, "id": result.notification_id})
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    asyncio.run(main())
