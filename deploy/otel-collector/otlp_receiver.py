#!/usr/bin/env python3
"""An OpenTelemetry collector stand-in: receives OTLP/HTTP traces (protobuf or JSON) on
POST /v1/traces, decodes them with opentelemetry-proto (an independent decoder of what Herald
sends) and appends each span as a line of JSON to a file. Herald's tests read that file; in
compose (profile `tracing`) it is where the spans go when no real collector is at hand.

    otlp_receiver.py --port 4318 --out /var/lib/otel/spans.jsonl [--ready-file F]

Each line: traceId, spanId, parentSpanId (hex, "" for a root), name, kind (SPAN_KIND_*),
service (resource's service.name), startNs, endNs, status ({code, message}), attributes
(a flat object), events ([{name, attributes}]) and links ([{traceId, spanId}]).
"""
import argparse
import gzip
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value_of(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def attributes_of(key_values):
    return {kv.key: value_of(kv.value) for kv in key_values}


def spans_of(request):
    for resource_spans in request.resource_spans:
        resource = attributes_of(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": trace_pb2.Span.SpanKind.Name(span.kind),
                    "service": resource.get("service.name", ""),
                    "resource": resource,
                    "startNs": span.start_time_unix_nano,
                    "endNs": span.end_time_unix_nano,
                    "status": {"code": trace_pb2.Status.StatusCode.Name(span.status.code), "message": span.status.message},
                    "attributes": attributes_of(span.attributes),
                    "events": [{"name": e.name, "attributes": attributes_of(e.attributes)} for e in span.events],
                    "links": [{"traceId": l.trace_id.hex(), "spanId": l.span_id.hex()} for l in span.links],
                }


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    lock = threading.Lock()
    out = None

    def do_POST(self):
        if self.path != "/v1/traces":
            self.send_error(404, "only /v1/traces is received here")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding", "") == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        content_type = self.headers.get("Content-Type", "")
        try:
            if content_type.startswith("application/json"):
                json_format.Parse(body, request)
            elif content_type.startswith("application/x-protobuf"):
                request.ParseFromString(body)
            else:
                raise ValueError(f"unsupported content type {content_type!r}")
        except Exception as error:  # a malformed export is the exporter's defect: say so
            self.send_error(400, f"not an ExportTraceServiceRequest: {error}")
            return
        lines = [json.dumps(span, sort_keys=True) for span in spans_of(request)]
        with Receiver.lock, open(Receiver.out, "a") as out:
            for line in lines:
                out.write(line + "\n")
        reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def do_GET(self):
        # A health check for compose.
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=4318)
    parser.add_argument("--out", required=True)
    parser.add_argument("--ready-file", help="written with the port once listening")
    args = parser.parse_args()
    # Stop on SIGTERM even as a container's PID 1, or started by a process that ignores or
    # blocks it (a Swift test's child inherits both).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    Receiver.out = args.out
    open(args.out, "a").close()
    server = ThreadingHTTPServer((args.host, args.port), Receiver)
    if args.ready_file:
        with open(args.ready_file, "w") as ready:
            ready.write(str(server.server_address[1]))
    print(f"otlp receiver on {args.host}:{server.server_address[1]}, spans to {args.out}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
