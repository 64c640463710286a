"""Encrypts and decrypts with independent implementations (http_ece, joserfc), for Herald's
cross-implementation tests. Reads one JSON request from the file named by argv[1] and prints
one JSON reply; binary values are base64url without padding."""
import base64
import json
import sys

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from joserfc import jwe
from joserfc.jwk import RSAKey


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    op = request["op"]
    if op == "ece-decrypt":
        number = int.from_bytes(b64d(request["privateKey"]), "big")
        private_key = ec.derive_private_key(number, ec.SECP256R1())
        plaintext = http_ece.decrypt(
            b64d(request["body"]), private_key=private_key,
            auth_secret=b64d(request["auth"]), version="aes128gcm")
        reply = {"plaintext": b64e(plaintext)}
    elif op == "ece-encrypt":
        sender = ec.generate_private_key(ec.SECP256R1())
        body = http_ece.encrypt(
            b64d(request["plaintext"]), private_key=sender, dh=b64d(request["publicKey"]),
            auth_secret=b64d(request["auth"]), version="aes128gcm", rs=request.get("recordSize", 4096))
        reply = {"body": b64e(body)}
    elif op == "jwe-decrypt":
        key = RSAKey.import_key(request["privateKeyPem"])
        result = jwe.decrypt_compact(request["compact"], key, algorithms=["RSA-OAEP-256", "A256GCM"])
        reply = {"plaintext": b64e(result.plaintext), "header": result.protected}
    elif op == "jwe-encrypt":
        key = RSAKey.import_key(request["publicKeyPem"])
        header = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": request["kid"]}
        compact = jwe.encrypt_compact(header, b64d(request["plaintext"]), key, algorithms=["RSA-OAEP-256", "A256GCM"])
        reply = {"compact": compact}
    else:
        raise SystemExit(f"unknown op {op}")
    print(json.dumps(reply))


if __name__ == "__main__":
    main()
