/// A Smart ID authentication or signing request.
public struct AuthenticationRequest: Sendable, Hashable {
    public enum RequestType: String, Sendable, Hashable {
        case authentication = "auth"
        case signing = "sign"
    }

    public var type: RequestType
    /// The request's id, to fetch and answer it.
    public var messageId: String
    /// Who asks (absent when the data was left out).
    public var requestor: String?
    /// The profile (Smart ID's push id) the request is for: an app holds several and must
    /// know which one is asked; absent in a push from before Herald sent it.
    public var pushId: String?

    public init(type: RequestType, messageId: String, requestor: String?, pushId: String? = nil) {
        self.type = type
        self.messageId = messageId
        self.requestor = requestor
        self.pushId = pushId
    }
}
