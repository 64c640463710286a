"""A push service written from the RFCs, standing in for Google's, Mozilla's or Apple's: it
serves HTTPS on the port the request names and takes `count` pushes at /push/sub, checking
each as RFC 8030, RFC 8291 and RFC 8292 say, with independent code: the VAPID token with
py_vapid (the signature, by the key `k` names) and joserfc (ES256, `aud` the origin, `exp`
within 24 hours, `sub` a mailto: or https: URI), the body decrypted with http_ece for the
subscription's keys. It answers each push with the next of `answers` (default 201) and then
prints what it saw: {"pushes": [{"vapid": "ok" or why not, "plaintext", "headers"}]}.

The request (argv[1]): port, certificate and key (PEM files), privateKey and auth (the
subscription's, base64url), origin, count, answers (optional), timeout (seconds)."""
import base64
import http.server
import json
import ssl
import sys
import threading
import time

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from joserfc import jwt
from joserfc.jwk import ECKey
from py_vapid import Vapid02


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_vapid(header):
    """RFC 8292 §3: `vapid t=<token>, k=<key>` (parameters separated by commas, optional space)."""
    scheme, _, rest = header.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError(f"scheme {scheme!r} is not vapid")
    parameters = {}
    for part in rest.split(","):
        name, _, value = part.strip().partition("=")
        parameters[name] = value
    return parameters["t"], parameters["k"]


def check_vapid(header, origin):
    token, key = parse_vapid(header)
    # py_vapid verifies the token's signature with the key `k` names.
    if not Vapid02.verify(f"vapid t={token},k={key}"):
        return "py_vapid: the signature does not verify"
    point = b64decode(key)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    decoded = jwt.decode(token, ECKey.import_key(pem), algorithms=["ES256"])
    claims = decoded.claims
    registry = jwt.JWTClaimsRegistry(aud={"essential": True, "value": origin}, exp={"essential": True}, sub={"essential": True})
    registry.validate(claims)
    if claims["exp"] > time.time() + 24 * 3600:
        return f"exp {claims['exp']} is more than 24 hours ahead"
    if not (claims["sub"].startswith("mailto:") or claims["sub"].startswith("https:")):
        return f"sub {claims['sub']!r} is not a mailto: or https: URI"
    return "ok"


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    private = ec.derive_private_key(int.from_bytes(b64decode(request["privateKey"]), "big"), ec.SECP256R1())
    auth = b64decode(request["auth"])
    answers = request.get("answers", [])
    pushes = []
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen = {"headers": {name.lower(): value for name, value in self.headers.items() if name.lower() != "authorization"}}
            try:
                seen["vapid"] = check_vapid(self.headers.get("Authorization", ""), request["origin"])
            except Exception as error:  # any refusal is reported, not raised
                seen["vapid"] = f"{type(error).__name__}: {error}"
            try:
                seen["plaintext"] = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm").decode()
            except Exception as error:
                seen["plaintext"] = None
                seen["decryption"] = f"{type(error).__name__}: {error}"
            status = answers[len(pushes)] if len(pushes) < len(answers) else 201
            pushes.append(seen)
            self.send_response(status)
            if status == 201:
                self.send_header("Location", f"{request['origin']}/message/{len(pushes)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            if len(pushes) >= request["count"]:
                done.set()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", request["port"]), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(request["certificate"], request["key"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    done.wait(request.get("timeout", 60))
    server.shutdown()
    print(json.dumps({"pushes": pushes}))


main()
