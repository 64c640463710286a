"""pywebpush, a reference Web Push application server (RFC 8030, RFC 8291 aes128gcm, RFC 8292
VAPID), sends one message to a subscription of the sandbox's push service. Reads the request
JSON from the file named by argv[1]: subscription (PushSubscription.toJSON()), data (text),
vapidKeyFile (PEM), subject, caFile, ttl; prints {"status": …, "body": …}."""
import json
import sys

import requests
from pywebpush import WebPushException, webpush


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    session = requests.Session()
    session.trust_env = False  # REQUESTS_CA_BUNDLE would override verify
    session.verify = request["caFile"]
    try:
        response = webpush(
            subscription_info=request["subscription"],
            data=request["data"],
            vapid_private_key=request["vapidKeyFile"],
            vapid_claims={"sub": request["subject"]},
            content_encoding="aes128gcm",
            ttl=request.get("ttl", 60),
            requests_session=session,
        )
    except WebPushException as error:
        response = error.response
    print(json.dumps({"status": response.status_code, "body": response.text}))


main()
