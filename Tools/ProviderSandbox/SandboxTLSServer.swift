import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import ServiceLifecycle

/// The sandbox's HTTPS side on plain NIO: TLS with ALPN, then HTTP/2 (each stream answered
/// synchronously on its event loop) or HTTP/1.1. Answering on the event loop, without a
/// task and async channel per request, is what lets one process outrun the pipeline.
struct SandboxTLSServer: Service {
    let sandbox: Sandbox
    let host: String
    let port: Int
    let logger: Logger
    let onRunning: @Sendable (Int) async -> Void

    func run() async throws {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(sandbox.certificates.serverCertificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(sandbox.certificates.serverKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let sandbox = sandbox
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // TCP_NODELAY is IPPROTO_TCP's option 1; at the socket level, option 1 is SO_DEBUG,
            // which only a privileged process may set: every connection was closed unanswered
            // when the sandbox ran as an ordinary user (the image's user herald).
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                // A number per connection, never reused (APNs keeps state per connection).
                let connection = sandbox.state.nextSequence()
                @Sendable func http2(_ channel: Channel) -> EventLoopFuture<Void> {
                    channel.configureHTTP2Pipeline(mode: .server, connectionConfiguration: .init(), streamConfiguration: Self.streamConfiguration) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(EndStreamCoalescer())
                            try stream.pipeline.syncOperations.addHandler(AuthorityFromHost())
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(SandboxRequestHandler(sandbox: sandbox, connection: connection))
                        }
                    }.map { _ in }
                }
                @Sendable func http1(_ channel: Channel) -> EventLoopFuture<Void> {
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(SandboxRequestHandler(sandbox: sandbox, connection: connection))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: http2,
                        // Without ALPN, HTTP/2 with prior knowledge (as APNs clients such as
                        // aioapns speak it) or HTTP/1.1, by the connection's first bytes.
                        http1ChannelConfigurator: { channel in
                            channel.pipeline.addHandler(PriorKnowledgeSniffer(http2: http2, http1: http1))
                        })
                }
            }
            .bind(host: host, port: port).get()
        let bound = channel.localAddress?.port ?? port
        logger.info("Server started and listening on \(host):\(bound)")
        sandbox.listening(scheme: "https", port: bound)
        await onRunning(bound)
        try? await gracefulShutdown()
        try? await channel.close()
    }

    /// NIO's defaults, except that RST_STREAM frames do not close the connection. NIO counts
    /// every RST_STREAM (200 in 30 s and it sends GOAWAY claiming no stream was processed), even
    /// on a stream already answered, which RFC 9113 §5.1 lets a client send and real front ends
    /// ignore. libcurl 7.88 (Debian 12) sends one after every answer without a body (APNs'
    /// 200): `http2_handle_stream_close` clears the stream's `closed` flag, so `http2_data_done`
    /// resets it. NIO's limit closed the connection every ~300 pushes, and libcurl sent the
    /// pushes in flight again, pushes the sandbox had taken: APNs duplicates that were ours.
    static let streamConfiguration: NIOHTTP2Handler.StreamConfiguration = {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.streamResetFrameRateLimit.maximumCount = Int.max
        return configuration
    }()
}

/// Collects one HTTP request (from an HTTP/2 stream or an HTTP/1.1 connection), lets the
/// sandbox answer it, and writes the reply, after the reply's delay if it has one.
final class SandboxRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let sandbox: Sandbox
    private let connection: UInt64
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false

    init(sandbox: Sandbox, connection: UInt64) {
        self.sandbox = sandbox
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = nil
            tooLarge = false
        case .body(var chunk):
            if (body?.readableBytes ?? 0) + chunk.readableBytes > SandboxHTTP.maxBody {
                tooLarge = true
            } else if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let reply: SandboxReply
            if tooLarge {
                reply = SandboxHTTP.json(413, ["title": "Payload Too Large", "status": 413, "detail": "the body exceeds \(SandboxHTTP.maxBody) bytes"], contentType: "application/problem+json")
            } else {
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                let bytes = body.map { Data($0.readableBytesView) } ?? Data()
                var request = SandboxRequest(method: head.method.rawValue, target: head.uri, headers: headers, body: bytes)
                request.connection = connection
                reply = sandbox.handle(request)
            }
            body = nil
            if reply.delayMilliseconds > 0 {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(Int64(reply.delayMilliseconds))) {
                    let (handler, context) = bound.value
                    handler.write(reply, version: head.version, keepAlive: head.isKeepAlive, context: context)
                }
            } else {
                write(reply, version: head.version, keepAlive: head.isKeepAlive, context: context)
            }
        }
    }

    private func write(_ reply: SandboxReply, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(reply.headers.count + 1)
        for header in reply.headers { headers.add(name: header.name, value: header.value) }
        headers.add(name: "content-length", value: String(reply.body.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: reply.status), headers: headers))), promise: nil)
        if !reply.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply.body)))), promise: nil)
        }
        if keepAlive || version.major >= 2 {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// Sends a response's END_STREAM on its last frame, as Google's and Apple's front ends do:
/// on the last DATA frame of a body, and on the HEADERS of a bodiless answer (APNs' 200),
/// instead of an empty END_STREAM frame after them. A client that has read the whole answer
/// before END_STREAM arrives (libcurl 7.88 does) resets the stream; 200 such resets in 30 s
/// make NIO (and real servers' rapid-reset protection) close the connection, and libcurl
/// then sends the streams in flight on it again, pushes the server had already taken.
final class EndStreamCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The last HEADERS or DATA frame written, held until the next says whether it ends the stream.
    private var held: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if case .data(let frame) = payload, frame.endStream, case .byteBuffer(let last) = frame.data, last.readableBytes == 0,
           let (previous, previousPromise) = held {
            held = nil
            let merged: HTTP2Frame.FramePayload
            switch previous {
            case .headers(var headers): headers.endStream = true; merged = .headers(headers)
            case .data(var body): body.endStream = true; merged = .data(body)
            default: merged = previous
            }
            if let previousPromise { promise.map { previousPromise.futureResult.cascade(to: $0) } }
            context.write(wrapOutboundOut(merged), promise: previousPromise ?? promise)
            return
        }
        flushHeld(context: context)
        switch payload {
        case .headers(let headers) where !headers.endStream:
            held = (payload, promise)
        case .data(let frame) where !frame.endStream:
            held = (payload, promise)
        default:
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        flushHeld(context: context)
        context.flush()
    }

    private func flushHeld(context: ChannelHandlerContext) {
        guard let (payload, promise) = held else { return }
        held = nil
        context.write(wrapOutboundOut(payload), promise: promise)
    }
}

/// Picks HTTP/2 (prior knowledge: the connection preface) or HTTP/1.1 from a connection's
/// first bytes when TLS negotiated no protocol, then steps aside.
final class PriorKnowledgeSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n".utf8)
    private let http2: @Sendable (Channel) -> EventLoopFuture<Void>
    private let http1: @Sendable (Channel) -> EventLoopFuture<Void>
    private var buffered: ByteBuffer?
    private var decided = false

    init(http2: @escaping @Sendable (Channel) -> EventLoopFuture<Void>, http1: @escaping @Sendable (Channel) -> EventLoopFuture<Void>) {
        self.http2 = http2
        self.http1 = http1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if buffered == nil { buffered = chunk } else { buffered!.writeBuffer(&chunk) }
        guard !decided, let bytes = buffered?.readableBytesView else { return }
        let seen = min(bytes.count, Self.preface.count)
        let matches = bytes.prefix(seen).elementsEqual(Self.preface.prefix(seen))
        guard !matches || seen == Self.preface.count else { return }
        decided = true
        let configure = matches ? http2 : http1
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        configure(context.channel).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success:
                if let buffered = handler.buffered { context.fireChannelRead(NIOAny(buffered)) }
                handler.buffered = nil
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            case .failure:
                context.close(promise: nil)
            }
        }
    }
}

/// Gives a request without `:authority` its `host` header as `:authority` (RFC 9113
/// §8.3.1 allows either; APNs clients such as aioapns send `host`), which NIO's HTTP/1
/// view of a stream requires.
final class AuthorityFromHost: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .headers(var headers) = unwrapInboundIn(data), !headers.headers.contains(name: ":authority"),
              let host = headers.headers.first(name: "host") else {
            context.fireChannelRead(data)
            return
        }
        var fields = HPACKHeaders()
        fields.add(name: ":authority", value: host)
        for (name, value, indexing) in headers.headers where name != "host" { fields.add(name: name, value: value, indexing: indexing) }
        headers.headers = fields
        context.fireChannelRead(wrapInboundOut(.headers(headers)))
    }
}
