"""Verifies a forward the way a tenant's receiver would, with the Standard Webhooks
reference library for Python (standardwebhooks, PyPI), for Herald's cross-implementation
tests. Reads one JSON request {secret, body (base64), headers} from the file named by argv[1]
and prints one JSON reply: {verified: true, payload} or {verified: false, error}."""
import base64
import json
import sys

from standardwebhooks import Webhook


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    body = base64.b64decode(request["body"])
    try:
        payload = Webhook(request["secret"]).verify(body, request["headers"])
        print(json.dumps({"verified": True, "payload": payload}))
    except Exception as error:  # the library's WebhookVerificationError, or a malformed header
        print(json.dumps({"verified": False, "error": f"{type(error).__name__}: {error}"}))


if __name__ == "__main__":
    main()
