// herald-messaging-bench: Herald's Publisher and Consumer moving persistent messages
// through a quorum queue, one publisher (confirms, windows of 1000) and one consumer
// (manual acks, prefetch 500) at once, measured exactly like Benchmarks/raw/raw_bench.c.
// Prints one JSON line. Build it in release mode: scripts/bench runs both.
//
//   herald-messaging-bench [messages] [queue] [amqp-url]
import Foundation
import Messaging

/// The benchmark runs off the main actor, as services do.
enum MessagingBenchmark {
    static func run() async throws {
        let arguments = CommandLine.arguments
        let total = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
        let queueName = arguments.count > 2 ? arguments[2] : "bench.herald"
        let url = try AMQPURL(arguments.count > 3 ? arguments[3] : "amqp://guest:guest@127.0.0.1:5672/")
        let size = 500
        let window = 1000
        let prefetch: UInt16 = 500

        let queue = QueueSpec(queueName)
        let topology = AMQPTopology(queues: [queue])
        let admin = BrokerAdmin(url: url)
        try await admin.declare(topology)
        try await admin.purge(queueName)

        let publisher = Publisher(configuration: ConnectionConfiguration(url: url, name: "bench/publisher", topology: topology), window: window)
        let consumer = Consumer(configuration: ConnectionConfiguration(url: url, name: "bench/consumer", topology: topology), queue: queueName, prefetch: prefetch)
        guard await publisher.waitUntilConnected(timeout: .seconds(10)), await consumer.waitUntilConnected(timeout: .seconds(10)) else {
            FileHandle.standardError.write(Data("cannot connect to \(url)\n".utf8))
            exit(1)
        }

        let body = Data(repeating: UInt8(ascii: "x"), count: size)
        let message = OutgoingMessage(
            exchange: "", routingKey: queueName, body: body,
            properties: MessageProperties(contentType: "application/octet-stream", persistent: true))
        let batch = Array(repeating: message, count: window)

        let clock = ContinuousClock()
        let start = clock.now
        let consuming = Task {
            var received = 0
            for await delivery in consumer {
                delivery.ack()
                received += 1
                if received == total { break }
            }
            return clock.now
        }
        var sent = 0
        while sent < total {
            let count = min(window, total - sent)
            try await publisher.publish(contentsOf: count == window ? batch : Array(batch.prefix(count)))
            sent += count
        }
        let end = await consuming.value
        let seconds = (end - start).components
        let elapsed = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
        print(#"{"impl":"herald","messages":\#(total),"bytes":\#(size),"seconds":\#(String(format: "%.3f", elapsed)),"msgPerSec":\#(Int((Double(total) / elapsed).rounded()))}"#)
        await consumer.close()
        await publisher.close()
        try await admin.delete(queue: queueName)
    }
}

try await Task.detached { try await MessagingBenchmark.run() }.value
