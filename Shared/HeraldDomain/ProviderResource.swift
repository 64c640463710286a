/// A document a provider serves an app's clients through the gateway, at
/// `GET /v1/apps/{app}/<platform>/<name>`: what a client needs of the app's settings to use
/// the provider (Web Push: the `vapid-public-key` a web page subscribes with). The gateway
/// answers it to a key with the `devices` scope and to the app's client tokens; the OpenAPI
/// document's path for it is generated from the manifest.
public struct ProviderResource: Sendable {
    /// The last segment of its path.
    public let name: String
    /// What it is, in a sentence (the OpenAPI operation's summary).
    public let summary: String
    /// The fields of the JSON object it answers, each with its description.
    public let fields: [String: String]
    /// The object for `app`, or nil when the app has no settings for the provider (404).
    public let answer: @Sendable (_ app: String, _ configuration: AppConfiguration) throws -> [String: String]?

    public init(
        name: String, summary: String, fields: [String: String],
        answer: @escaping @Sendable (_ app: String, _ configuration: AppConfiguration) throws -> [String: String]?
    ) {
        self.name = name
        self.summary = summary
        self.fields = fields
        self.answer = answer
    }
}
