import Foundation
import HeraldModel

/// One route by which a source's state is kept (Smart ID's profile devices, Evernym's
/// sponsees, email addresses' keys): `POST` or `PUT /v1/apps/{app}<path>` with the devices
/// scope, its OpenAPI operation, and the function that validates a body into the change
/// Registration stores (`SourceStateChange`). The gateway serves it; its OpenAPI operation is
/// generated from the manifest.
public struct SourceStateRoute: Sendable {
    public enum Method: String, Sendable {
        case post = "POST", put = "PUT"
    }

    /// The OpenAPI `operationId` (`evernymSponsee`).
    public var operation: String
    public var method: Method
    /// Below `/v1/apps/{app}`, parameters as `:name` (`/evernym/sponsees/:id`); each is an
    /// OpenAPI parameter of that name (`#/components/parameters/<name>`).
    public var path: String
    /// The OpenAPI summary.
    public var summary: String
    /// The request body's schema as OpenAPI YAML, as `SourceRoute.bodySchema`.
    public var bodySchema: String
    /// The `200` response as an OpenAPI response object on one line (`{ $ref: "#/components/responses/Device" }`).
    public var reply: String
    /// Whether a device's client token may call it, for its own user's state (Registration
    /// checks what it may touch); else server API keys only.
    public var takesClientTokens: Bool
    /// Reads the request into the change, or throws the 400 (422) that names the field.
    public var makeChange: @Sendable (SourceStateRequest) throws(GatewayError) -> SourceStateChange

    public init(
        operation: String, method: Method, path: String, summary: String, bodySchema: String, reply: String, takesClientTokens: Bool,
        makeChange: @escaping @Sendable (SourceStateRequest) throws(GatewayError) -> SourceStateChange
    ) {
        self.operation = operation
        self.method = method
        self.path = path
        self.summary = summary
        self.bodySchema = bodySchema
        self.reply = reply
        self.takesClientTokens = takesClientTokens
        self.makeChange = makeChange
    }

    /// The path's parameters' names, in order (`["id"]`).
    public var parameters: [String] {
        path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }

    /// The path in OpenAPI's form (`/evernym/sponsees/{id}`).
    public var openAPIPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }
}

/// What a source's state route gets of one request: the body, the path's parameters, the app,
/// who calls, and the gateway's checks of a device's token and of a com method.
public struct SourceStateRequest: Sendable {
    public var body: JSONFields
    public var parameters: [String: String]
    public var app: String
    /// The app's configuration, nil for an app the file does not know.
    public var appConfiguration: AppConfiguration?
    /// The user a device's client token acts for (its `sub`); nil for an API key.
    public var clientUserId: String?
    /// The platform of a device token handed over without one (the system's own provider
    /// where the app has its account, else the one that takes unnamed tokens), with the
    /// token checked as a device registration's is; throws naming `field`.
    public var deviceTokenPlatform: @Sendable (_ token: String, _ os: DeviceOS, _ field: String) throws(GatewayError) -> Platform
    /// A com method an upstream names (`FCM:<token>`) as a token Herald can push to, for the app.
    public var comMethod: @Sendable (String) -> DirectToken?
    /// The forms of com method the app can be pushed to (`FCM:<token>`, …), for an error's text.
    public var comMethodForms: [String]

    public init(
        body: JSONFields, parameters: [String: String], app: String, appConfiguration: AppConfiguration?, clientUserId: String?,
        deviceTokenPlatform: @escaping @Sendable (String, DeviceOS, String) throws(GatewayError) -> Platform,
        comMethod: @escaping @Sendable (String) -> DirectToken?, comMethodForms: [String]
    ) {
        self.body = body
        self.parameters = parameters
        self.app = app
        self.appConfiguration = appConfiguration
        self.clientUserId = clientUserId
        self.deviceTokenPlatform = deviceTokenPlatform
        self.comMethod = comMethod
        self.comMethodForms = comMethodForms
    }

    /// The path's parameter `name`.
    public func parameter(_ name: String) throws(GatewayError) -> String {
        guard let value = parameters[name], !value.isEmpty else { throw GatewayError.invalid(name, "is required in the path") }
        return value
    }
}
