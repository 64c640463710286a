import ArgumentParser
import Foundation
import HeraldControl
import HeraldDomain
import HeraldSources
import JSONKit

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Post a sample event of one integration through the gateway and print its event id.",
        discussion: """
            Each integration's sample reaches one target: \(SourceRegistry.herald.samples.map { "\($0.name) \($0.target.option)" }.joined(separator: "; ")) \
            (a push id or user with a registered device, a registered sponsee, an address whose key was registered).
            """)

    @OptionGroup var options: Options

    @Argument(help: "The integration: \(SourceRegistry.herald.samples.map(\.name).joined(separator: ", ")).")
    var integration: String

    @Option(help: "Smart ID: the push id.") var pushId: String?
    @Option(help: "Chat, data sync, CloudEvents, the canonical event: the recipient; email: the owner.") var user: String?
    @Option(help: "Sponsor: the sponsee id.") var sponsee: String?
    @Option(help: "Email: the address id.") var address: String?

    func run() async throws {
        try await running(options) { () async throws(ControlError) in
            guard let sample = SourceRegistry.herald.sample(named: integration) else {
                throw ControlError(.invalidInput, "unknown integration \"\(integration)\"; one of \(SourceRegistry.herald.samples.map(\.name).joined(separator: ", "))")
            }
            let id = UUID().uuidString.lowercased()
            let body: Data
            do throws(SampleTarget.Missing) {
                body = try sample.json(for: SampleTarget(pushId: pushId, user: user, sponsee: sponsee, address: address), id: id)
            } catch {
                throw ControlError(.invalidInput, "send \(integration) needs \(error.option)")
            }
            let answer = try await options.gateway().call("POST", sample.path, body: body, headers: sample.headers(id: id))
            let eventId = answer["eventId"]?.stringValue ?? "?"
            options.print(json: JSONValue.object(answer), text: eventId)
        }
    }
}
