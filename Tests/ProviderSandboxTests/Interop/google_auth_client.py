"""Google's own auth library (google-auth) against the sandbox, as a user's Firebase client
would use it: service-account credentials with the given scopes get an access token from the
account's token_uri, and an authorized session sends one FCM v1 message with it. Reads one
JSON request from the file named by argv[1] and prints one JSON reply."""
import json
import sys

import google.auth.transport.requests
import requests
from google.auth import exceptions
from google.oauth2 import service_account


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    # trust_env off: REQUESTS_CA_BUNDLE in the environment would win over session.verify.
    session = requests.Session()
    session.trust_env = False
    session.verify = request["caFile"]
    credentials = service_account.Credentials.from_service_account_file(
        request["serviceAccountFile"], scopes=request["scopes"])
    try:
        credentials.refresh(google.auth.transport.requests.Request(session))
    except exceptions.RefreshError as error:
        print(json.dumps({"token": False, "error": str(error)}))
        return
    authorized = google.auth.transport.requests.AuthorizedSession(credentials)
    authorized.trust_env = False
    authorized.verify = request["caFile"]
    answer = authorized.post(
        f'{request["endpoint"]}/v1/projects/{credentials.project_id}/messages:send',
        json={"message": {"token": request["deviceToken"], "data": {"herald": "1"}}})
    print(json.dumps({"token": True, "sendStatus": answer.status_code, "sendBody": answer.text}))


main()
