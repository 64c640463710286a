"""Mints device-side client tokens with PyJWT, as a tenant's backend would, for the
client-token tests (Tests/StackTests/API/ClientTokenTests.swift).

Request (a JSON file named by the first argument):
  {"tokens": [{"alg": "HS256" | "ES256" | "none", "key": <HS256 secret or ES256 private key PEM or null>,
               "claims": {...}, "headers": {...}}]}
Reply (the last line printed): {"tokens": ["<jwt>", ...]}, in the request's order.
"""
import json
import sys

import jwt


def mint(spec):
    algorithm = spec["alg"]
    key = spec.get("key")
    if algorithm == "none":
        key = None
    return jwt.encode(spec["claims"], key, algorithm=algorithm, headers=spec.get("headers") or None)


def main():
    with open(sys.argv[1]) as handle:
        request = json.load(handle)
    print(json.dumps({"tokens": [mint(spec) for spec in request["tokens"]]}))


if __name__ == "__main__":
    main()
