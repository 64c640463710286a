import CRabbitMQ
import Foundation


#if canImport(Glibc)
import Glibc
#endif

/// One AMQP connection with one channel, over rabbitmq-c. Not thread-safe: it is created,
/// used and destroyed on a single `ChannelWorker` thread, and no C type leaves this module.
final class RabbitConnection {
    let state: amqp_connection_state_t
    let channel: amqp_channel_t = 1
    let heartbeat: Int
    private let arena = AMQPArena()
    private var closed = false

    /// Connects, logs in and opens channel 1.
    init(url: AMQPURL, heartbeat: Int, name: String, connectTimeout: Duration) throws {
        guard let state = amqp_new_connection() else {
            throw MessagingError(.connectionFailed, "could not allocate a connection")
        }
        self.state = state
        self.heartbeat = heartbeat
        do {
            let socket = try url.tls.map { try Self.tlsSocket(state, $0) } ?? Self.tcpSocket(state)
            let (seconds, attoseconds) = connectTimeout.components
            var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            let status = url.host.withCString { host in
                amqp_socket_open_noblock(socket, host, Int32(url.port), &timeout)
            }
            guard status == AMQP_STATUS_OK.rawValue else {
                throw MessagingError(.connectionFailed, Self.openFailure(status, url: url))
            }
            // rabbitmq-c 0.11 does not announce `connection.blocked` itself: without it the
            // broker never says that a resource alarm blocks publishing.
            var properties = arena.table([
                (key: "connection_name", value: .string(name)),
                (key: "product", value: .string("Herald")),
                (key: "capabilities", value: .table(["connection.blocked": .bool(true)])),
            ])
            let reply = url.virtualHost.withCString { vhost in
                url.user.withCString { user in
                    url.password.withCString { password in
                        herald_amqp_login_plain(state, vhost, 0, 131_072, Int32(heartbeat), &properties, user, password)
                    }
                }
            }
            arena.recycle()
            try Self.check(reply, doing: "log in to vhost \"\(url.virtualHost)\" as \"\(url.user)\"", reason: .connectionFailed)
            amqp_channel_open(state, channel)
            try check("open a channel", reason: .connectionFailed)
        } catch {
            amqp_destroy_connection(state)
            closed = true
            throw error
        }
    }

    deinit {
        if !closed { amqp_destroy_connection(state) }
    }

    private static func tcpSocket(_ state: amqp_connection_state_t) throws -> OpaquePointer {
        guard let socket = amqp_tcp_socket_new(state) else {
            throw MessagingError(.connectionFailed, "could not create a TCP socket")
        }
        return socket
    }

    /// A TLS socket on OpenSSL: TLS 1.2 or newer, the broker's certificate verified against
    /// the CA file (or the system's store) and, unless turned off, the host name. rabbitmq-c
    /// checks both once the handshake is done and before any AMQP byte is sent.
    private static func tlsSocket(_ state: amqp_connection_state_t, _ tls: AMQPTLS) throws -> OpaquePointer {
        guard let socket = amqp_ssl_socket_new(state) else {
            throw MessagingError(.connectionFailed, "could not create a TLS socket")
        }
        guard amqp_ssl_socket_set_ssl_versions(socket, AMQP_TLSv1_2, AMQP_TLSvLATEST) == AMQP_STATUS_OK.rawValue else {
            throw MessagingError(.connectionFailed, "could not require TLS 1.2 or newer")
        }
        if let caFile = tls.caFile {
            guard amqp_ssl_socket_set_cacert(socket, caFile) == AMQP_STATUS_OK.rawValue else {
                throw MessagingError(.connectionFailed, "HERALD_AMQP_CA_FILE \(caFile): not a readable PEM file of CA certificates")
            }
        } else {
            _ = herald_amqp_ssl_trust_system_store(socket)
        }
        switch (tls.certificateFile, tls.keyFile) {
        case let (certificate?, key?):
            guard amqp_ssl_socket_set_key(socket, certificate, key) == AMQP_STATUS_OK.rawValue else {
                throw MessagingError(.connectionFailed, "HERALD_AMQP_CERT_FILE \(certificate) and HERALD_AMQP_KEY_FILE \(key): not a readable PEM certificate and the private key that matches it")
            }
        case (nil, nil):
            break
        default:
            throw MessagingError(.connectionFailed, "a client certificate needs both HERALD_AMQP_CERT_FILE and HERALD_AMQP_KEY_FILE")
        }
        amqp_ssl_socket_set_verify_peer(socket, 1)
        amqp_ssl_socket_set_verify_hostname(socket, tls.verifyHostname ? 1 : 0)
        return socket
    }

    /// Why a socket did not open, naming the setting to look at when TLS refused the broker.
    private static func openFailure(_ status: Int32, url: AMQPURL) -> String {
        let trusted = url.tls?.caFile.map { "the CA in HERALD_AMQP_CA_FILE (\($0))" } ?? "the system's trust store (set HERALD_AMQP_CA_FILE to the broker's CA)"
        switch status {
        case AMQP_STATUS_SSL_PEER_VERIFY_FAILED.rawValue:
            return "refused the broker at \(url.host):\(url.port): its TLS certificate is not signed by \(trusted)"
        case AMQP_STATUS_SSL_HOSTNAME_VERIFY_FAILED.rawValue:
            return "refused the broker at \(url.host):\(url.port): its TLS certificate does not name the host \(url.host) (connect by a name the certificate has, or set HERALD_AMQP_VERIFY_HOSTNAME=false)"
        case AMQP_STATUS_SSL_CONNECTION_FAILED.rawValue, AMQP_STATUS_SSL_ERROR.rawValue:
            return "TLS handshake with \(url.host):\(url.port) failed: \(statusText(status)) (is it a TLS port, speaking TLS 1.2 or newer? does it want a client certificate: HERALD_AMQP_CERT_FILE, HERALD_AMQP_KEY_FILE?)"
        default:
            return "cannot reach \(url.host):\(url.port): \(statusText(status))"
        }
    }

    /// The socket descriptor, for `poll`.
    var socketDescriptor: Int32 { amqp_get_sockfd(state) }

    /// Holds back partial TCP segments while `body` writes several frames, then sends them
    /// together: a batch of publishes leaves in a few segments instead of one each, which
    /// saves the broker (and both kernels) a read per message.
    func corked<T>(_ body: () throws -> T) rethrows -> T {
        var on: Int32 = 1
        setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size))
        defer {
            var off: Int32 = 0
            setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        return try body()
    }

    /// Whether rabbitmq-c already holds unread bytes or frames (then `poll` would miss them).
    var hasBufferedInput: Bool {
        amqp_data_in_buffer(state) != 0 || amqp_frames_enqueued(state) != 0
    }

    // MARK: Declarations

    /// Declares `topology`; returns a note for each queue an earlier release declared
    /// without an argument added since (`QueueSpec.addedArguments`), which is used as it is.
    @discardableResult
    func declare(_ topology: AMQPTopology) throws -> [String] {
        var notes: [String] = []
        for exchange in topology.exchanges {
            amqp_exchange_declare(
                state, channel, arena.bytes(exchange.name), arena.bytes(exchange.kind.rawValue),
                0, exchange.durable ? 1 : 0, 0, 0, amqp_empty_table)
            arena.recycle()
            try check("declare exchange \(exchange.name)", reason: .topologyMismatch)
        }
        for queue in topology.queues {
            if let note = try declareAllowingEarlier(queue) { notes.append(note) }
        }
        for binding in topology.bindings {
            amqp_queue_bind(
                state, channel, arena.bytes(binding.queue), arena.bytes(binding.exchange),
                arena.bytes(binding.routingKey), amqp_empty_table)
            arena.recycle()
            try check("bind \(binding.queue) to \(binding.exchange) with \"\(binding.routingKey)\"", reason: .topologyMismatch)
        }
        return notes
    }

    /// Declares `queue`; should the broker hold it without (or with another value of) one of
    /// its `addedArguments`, the broker closes the channel, which is opened again and the
    /// queue used as it is: returns a note naming the argument, nil when declared as asked.
    func declareAllowingEarlier(_ queue: QueueSpec) throws -> String? {
        do {
            try declare(queue)
            return nil
        } catch let error as MessagingError {
            guard error.message.contains("broker closed the channel: 406"),
                  let argument = queue.addedArguments.sorted().first(where: { error.message.contains("inequivalent arg '\($0)'") })
            else { throw error }
            acknowledgeClose(onConnection: false)
            amqp_channel_open(state, channel)
            try check("open a channel", reason: .connectionLost)
            _ = try inspect(queue.name)
            return "\(queue.name) was declared by an earlier release without \(argument) (or with another value): it is used as it is"
        }
    }

    /// Declares one queue and returns its name (the broker's, for a server-named queue).
    @discardableResult
    func declare(_ queue: QueueSpec) throws -> String {
        let arguments = arena.table(queue.arguments.map { entry in
            switch entry.value {
            case .string(let s): (key: entry.key, value: HeaderValue.string(s))
            case .int(let i): (key: entry.key, value: HeaderValue.int(i))
            }
        })
        let ok = amqp_queue_declare(
            state, channel, arena.bytes(queue.name), 0, queue.durable ? 1 : 0,
            queue.exclusive ? 1 : 0, queue.autoDelete ? 1 : 0, arguments)
        let name = ok.map { AMQPDecode.string($0.pointee.queue) } ?? queue.name
        arena.recycle()
        try check("declare queue \(queue.name)", reason: .topologyMismatch)
        return name
    }

    /// The number of ready messages in an existing queue (a passive declare).
    func readyCount(_ queue: String) throws -> Int {
        try inspect(queue).ready
    }

    /// The ready messages and the consumers of an existing queue (a passive declare).
    func inspect(_ queue: String) throws -> QueueCounts {
        let ok = amqp_queue_declare(state, channel, arena.bytes(queue), 1, 0, 0, 0, amqp_empty_table)
        let counts = QueueCounts(ready: Int(ok?.pointee.message_count ?? 0), consumers: Int(ok?.pointee.consumer_count ?? 0))
        arena.recycle()
        try check("inspect queue \(queue)", reason: .channelError)
        return counts
    }

    /// Takes the next message of `queue` without acknowledging it (`basic.get`), or nil
    /// when the queue is empty.
    func get(_ queue: String) throws -> FetchedMessage? {
        let reply = amqp_basic_get(state, channel, arena.bytes(queue), 0)
        arena.recycle()
        try Self.check(reply, doing: "get a message from \(queue)", reason: .channelError)
        guard reply.reply.id == amqp_method_number_t(AMQP_BASIC_GET_OK_METHOD) else { return nil }
        let ok = reply.reply.decoded!.assumingMemoryBound(to: amqp_basic_get_ok_t.self).pointee
        let exchange = AMQPDecode.string(ok.exchange)
        let routingKey = AMQPDecode.string(ok.routing_key)
        let content = try readContent()
        return FetchedMessage(
            body: content.body, properties: content.properties, exchange: exchange, routingKey: routingKey,
            redelivered: ok.redelivered != 0, deliveryTag: ok.delivery_tag, remaining: Int(ok.message_count))
    }

    func purge(_ queue: String) throws {
        amqp_queue_purge(state, channel, arena.bytes(queue))
        arena.recycle()
        try check("purge queue \(queue)", reason: .channelError)
    }

    func delete(queue: String) throws {
        amqp_queue_delete(state, channel, arena.bytes(queue), 0, 0)
        arena.recycle()
        try check("delete queue \(queue)", reason: .channelError)
    }

    // MARK: Publishing

    func enableConfirms() throws {
        amqp_confirm_select(state, channel)
        try check("enable publisher confirms", reason: .channelError)
    }

    func publish(_ message: OutgoingMessage) throws {
        var properties = arena.basicProperties(message.properties)
        let exchange = arena.bytes(message.exchange)
        let routingKey = arena.bytes(message.routingKey)
        let status = message.body.withUnsafeBytes { body in
            amqp_basic_publish(
                state, channel, exchange, routingKey, message.mandatory ? 1 : 0, 0, &properties,
                amqp_bytes_t(len: body.count, bytes: UnsafeMutableRawPointer(mutating: body.baseAddress)))
        }
        arena.recycle()
        guard status == AMQP_STATUS_OK.rawValue else {
            throw MessagingError(.connectionLost, "publish failed: \(Self.statusText(status))")
        }
    }

    // MARK: Consuming

    func qos(prefetch: UInt16) throws {
        amqp_basic_qos(state, channel, 0, prefetch, 0)
        try check("set prefetch to \(prefetch)", reason: .channelError)
    }

    /// Starts consuming `queue` and returns the consumer tag.
    func consume(queue: String, noAck: Bool, exclusive: Bool, arguments: [String: HeaderValue] = [:]) throws -> String {
        let ok = amqp_basic_consume(
            state, channel, arena.bytes(queue), amqp_empty_bytes, 0, noAck ? 1 : 0,
            exclusive ? 1 : 0, arena.table(arguments))
        let tag = ok.map { AMQPDecode.string($0.pointee.consumer_tag) } ?? ""
        arena.recycle()
        try check("consume queue \(queue)", reason: .topologyMismatch)
        return tag
    }

    /// Asks the broker to stop delivering to `consumerTag`; the `cancel-ok` arrives as a frame.
    func cancel(consumerTag: String) throws {
        var method = amqp_basic_cancel_t(consumer_tag: arena.bytes(consumerTag), nowait: 0)
        let status = amqp_send_method(state, channel, amqp_method_number_t(AMQP_BASIC_CANCEL_METHOD), &method)
        arena.recycle()
        guard status == AMQP_STATUS_OK.rawValue else {
            throw MessagingError(.connectionLost, "cancel failed: \(Self.statusText(status))")
        }
    }

    func ack(_ deliveryTag: UInt64, multiple: Bool = false) throws {
        let status = amqp_basic_ack(state, channel, deliveryTag, multiple ? 1 : 0)
        guard status == AMQP_STATUS_OK.rawValue else {
            throw MessagingError(.connectionLost, "ack failed: \(Self.statusText(status))")
        }
    }

    func nack(_ deliveryTag: UInt64, requeue: Bool) throws {
        let status = amqp_basic_nack(state, channel, deliveryTag, 0, requeue ? 1 : 0)
        guard status == AMQP_STATUS_OK.rawValue else {
            throw MessagingError(.connectionLost, "nack failed: \(Self.statusText(status))")
        }
    }

    // MARK: Frames

    /// The next frame if one can be read without blocking, or nil. Also services outgoing
    /// heartbeats, which rabbitmq-c sends only from inside its read and write calls.
    func nextFrame() throws -> amqp_frame_t? {
        var frame = amqp_frame_t()
        var immediately = timeval(tv_sec: 0, tv_usec: 0)
        let status = amqp_simple_wait_frame_noblock(state, &frame, &immediately)
        if status == AMQP_STATUS_OK.rawValue { return frame }
        if status == AMQP_STATUS_TIMEOUT.rawValue { return nil }
        throw MessagingError(.connectionLost, Self.statusText(status))
    }

    /// Reads the header and body frames that follow a `basic.deliver` or `basic.return`.
    func readContent() throws -> (properties: MessageProperties, body: Data) {
        var message = amqp_message_t()
        let reply = amqp_read_message(state, channel, &message, 0)
        try Self.check(reply, doing: "read a message body", reason: .connectionLost)
        defer { amqp_destroy_message(&message) }
        return (AMQPDecode.properties(message.properties), AMQPDecode.data(message.body))
    }

    /// Answers the broker's `channel.close` or `connection.close` so it can finish closing.
    func acknowledgeClose(onConnection: Bool) {
        if onConnection {
            var ok = amqp_connection_close_ok_t(dummy: 0)
            amqp_send_method(state, 0, amqp_method_number_t(AMQP_CONNECTION_CLOSE_OK_METHOD), &ok)
        } else {
            var ok = amqp_channel_close_ok_t(dummy: 0)
            amqp_send_method(state, channel, amqp_method_number_t(AMQP_CHANNEL_CLOSE_OK_METHOD), &ok)
        }
    }

    /// Releases frame memory once nothing is pending.
    func releaseBuffers() {
        amqp_maybe_release_buffers(state)
    }

    // MARK: Closing

    /// Closes politely (channel, then connection) and frees everything.
    func close() {
        guard !closed else { return }
        closed = true
        _ = amqp_channel_close(state, channel, Int32(AMQP_REPLY_SUCCESS))
        _ = amqp_connection_close(state, Int32(AMQP_REPLY_SUCCESS))
        amqp_destroy_connection(state)
    }

    /// Drops the connection without the closing handshake (it is already dead).
    func abandon() {
        guard !closed else { return }
        closed = true
        amqp_destroy_connection(state)
    }

    // MARK: Errors

    private func check(_ doing: String, reason: MessagingError.Reason) throws {
        try Self.check(amqp_get_rpc_reply(state), doing: doing, reason: reason)
    }

    static func check(_ reply: amqp_rpc_reply_t, doing: String, reason: MessagingError.Reason) throws {
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            return
        case AMQP_RESPONSE_NONE:
            throw MessagingError(reason, "could not \(doing): no reply from the broker")
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            throw MessagingError(
                reason == .topologyMismatch ? .connectionLost : reason,
                "could not \(doing): \(statusText(reply.library_error))")
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            let decoded = reply.reply.decoded
            switch reply.reply.id {
            case amqp_method_number_t(AMQP_CONNECTION_CLOSE_METHOD):
                let close = decoded!.assumingMemoryBound(to: amqp_connection_close_t.self).pointee
                throw MessagingError(reason, "could not \(doing): broker closed the connection: \(close.reply_code) \(AMQPDecode.string(close.reply_text))")
            case amqp_method_number_t(AMQP_CHANNEL_CLOSE_METHOD):
                let close = decoded!.assumingMemoryBound(to: amqp_channel_close_t.self).pointee
                throw MessagingError(reason, "could not \(doing): broker closed the channel: \(close.reply_code) \(AMQPDecode.string(close.reply_text))")
            default:
                throw MessagingError(reason, "could not \(doing): unexpected server method \(reply.reply.id)")
            }
        default:
            throw MessagingError(reason, "could not \(doing): unknown reply type")
        }
    }

    static func statusText(_ status: Int32) -> String {
        String(cString: amqp_error_string2(status))
    }
}
