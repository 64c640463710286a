import ArgumentParser
import HeraldControl
import Foundation

struct DeadLetters: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List, show, replay and purge what Herald dead-lettered (the dead-letters queue).",
        subcommands: [List.self, Show.self, Replay.self, Purge.self])

    /// The options of every dead-letter command.
    struct Common: ParsableArguments {
        @OptionGroup var options: Options
        @Option(help: "Look at most at this many messages.") var limit = 1000
        @Option(help: "The queue (default dead-letters).") var queue = "dead-letters"

        func deadLetters() throws(ControlError) -> DeadLetterQueue {
            DeadLetterQueue(url: try options.broker(), queue: queue)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List dead letters with the reason each was dead-lettered; nothing is taken off the queue.")
        @OptionGroup var common: Common

        func run() async throws {
            try await running(common.options) { () async throws(ControlError) in
                let letters = try await common.deadLetters().list(limit: common.limit)
                let table = TextTable(["#", "ID", "CONTRACT", "FROM", "REPLAYS", "AT", "REASON"], rows: letters.map { l in
                    [String(l.position), l.id, l.contract ?? "-", "\(l.origin.exchange) \(l.origin.routingKey)", String(l.replays), l.deadLetteredAt ?? "-", l.reason]
                })
                common.options.print(json: ["count": letters.count, "deadLetters": letters.map(\.summary)],
                                     text: letters.isEmpty ? "no dead letters" : table.text)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one dead letter: its headers and body.")
        @OptionGroup var common: Common
        @Argument(help: "Its id (message id) or #position.") var id: String

        func run() async throws {
            try await running(common.options) { () async throws(ControlError) in
                let letters = try await common.deadLetters().list(limit: common.limit)
                guard let letter = letters.first(where: { $0.isNamed(by: [id]) }) else {
                    throw ControlError(.notFound, "no dead letter \(id) among the first \(letters.count)")
                }
                let fields = letter.summary
                let headers = letter.message.properties.headers
                let body = String(decoding: letter.message.body, as: UTF8.self)
                let text = fields.keys.sorted().map { "\($0): \(describe(fields[$0]!))" }.joined(separator: "\n")
                    + "\nheaders:\n" + headers.keys.sorted().map { "  \($0): \(headers[$0]!)" }.joined(separator: "\n")
                    + "\nbody:\n" + body
                common.options.print(json: letter.detail, text: text)
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish dead letters again to the exchange and routing key they first came with, counting replays in x-herald-replays.")
        @OptionGroup var common: Common
        @Argument(help: "Ids (message ids) or #positions.") var ids: [String] = []
        @Flag(help: "Replay every dead letter (of the first --limit).") var all = false

        func validate() throws {
            if ids.isEmpty == !all { throw ValidationError("give ids or --all") }
        }

        func run() async throws {
            try await running(common.options) { () async throws(ControlError) in
                let wanted = ids
                let all = all
                let replayed = try await common.deadLetters().replay(limit: common.limit) { all || $0.isNamed(by: wanted) }
                if replayed.isEmpty, !wanted.isEmpty {
                    throw ControlError(.notFound, "no dead letter \(wanted.joined(separator: ", ")) among the first \(common.limit)")
                }
                common.options.print(json: ["replayed": replayed.map(\.summary)],
                                     text: replayed.map { "replayed \($0.id) to \($0.origin.exchange) \($0.origin.routingKey) (replay \($0.replays + 1))" }.joined(separator: "\n"))
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete dead letters for good; asks first unless --yes.")
        @OptionGroup var common: Common
        @Argument(help: "Ids (message ids) or #positions.") var ids: [String] = []
        @Flag(help: "Purge every dead letter.") var all = false
        @Flag(help: "Do not ask for confirmation.") var yes = false

        func validate() throws {
            if ids.isEmpty == !all { throw ValidationError("give ids or --all") }
        }

        func run() async throws {
            try await running(common.options) { () async throws(ControlError) in
                let what = all ? "every dead letter in \(common.queue)" : "dead letters \(ids.joined(separator: ", "))"
                if !yes {
                    FileHandle.standardError.write(Data("Delete \(what) for good? Type yes: ".utf8))
                    guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                        throw ControlError(.declined, "not purged: not confirmed (--yes skips the question)")
                    }
                }
                let queue = try common.deadLetters()
                if all {
                    let count = try await queue.purgeAll()
                    common.options.print(json: ["purged": count], text: "purged \(count) dead letters")
                } else {
                    let wanted = ids
                    let purged = try await queue.purge(limit: common.limit) { $0.isNamed(by: wanted) }
                    if purged.isEmpty { throw ControlError(.notFound, "no dead letter \(wanted.joined(separator: ", ")) among the first \(common.limit)") }
                    common.options.print(json: ["purged": purged.count, "ids": purged.map(\.id)], text: "purged \(purged.map(\.id).joined(separator: ", "))")
                }
            }
        }
    }
}
