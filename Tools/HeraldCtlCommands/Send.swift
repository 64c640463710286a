import ArgumentParser
import HeraldControl
import Foundation

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Post a sample event of one integration through the gateway and print its event id.",
        discussion: """
            smartid needs --push-id (a push id a device registered); sponsor --sponsee; \
            email --address and --user (an address whose key was registered, and its owner); \
            datasync and chat --user (a user with a registered device).
            """)

    @OptionGroup var options: Options

    @Argument(help: "The integration: \(SampleEvent.allCases.map(\.rawValue).joined(separator: ", ")).")
    var integration: String

    @Option(help: "Smart ID: the push id.") var pushId: String?
    @Option(help: "Chat, data sync: the recipient; email: the owner.") var user: String?
    @Option(help: "Sponsor: the sponsee id.") var sponsee: String?
    @Option(help: "Email: the address id.") var address: String?

    func run() async throws {
        try await running(options) { () async throws(ControlError) in
            guard let sample = SampleEvent(rawValue: integration) else {
                throw ControlError(.invalidInput, "unknown integration \"\(integration)\"; one of \(SampleEvent.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let id = UUID().uuidString.lowercased()
            let body = try sample.body(for: .init(pushId: pushId, user: user, sponsee: sponsee, address: address), id: id)
            let answer = try await options.gateway().call("POST", sample.path, body: body, headers: sample.headers(id: id))
            let eventId = answer["eventId"] as? String ?? "?"
            options.print(json: answer, text: eventId)
        }
    }
}
