import HeraldDomain
import HeraldModel

/// A sponsee's com method (`PUT …/evernym/sponsees/{id}`), as the Evernym SDK's com-method
/// object gives it: Verity's forwards for the sponsee are pushed to it.
enum EvernymSponsee {
    static var route: SourceStateRoute {
        SourceStateRoute(
            operation: "evernymSponsee", method: .put, path: "/evernym/sponsees/:id",
            summary: "a sponsee's com method (types 3 and 4 are both pushed to FCM:<token>)", bodySchema: schema,
            reply: ##"{ description: the sponsee as stored, content: { application/json: { schema: { $ref: "#/components/schemas/SponseeReply" } } } }"##,
            takesClientTokens: false, makeChange: change)
    }

    @Sendable static func change(_ request: SourceStateRequest) throws(GatewayError) -> SourceStateChange {
        let body = request.body
        // The SDK's com-method object names its sponsee too; the path's is the one.
        let id = try request.parameter("id")
        if body.has("id"), try body.string("id", maxLength: 256) != id { throw GatewayError.invalid("id", "must match the path's sponsee id") }
        let type = try body.int("type")
        guard type == 3 || type == 4 else { throw GatewayError.invalid("type", "must be 3 or 4") }
        let value = try body.string("value")
        // Both types are pushed (3: Verity forwards to Herald, the sponsor, which pushes; 4:
        // Verity pushes itself, and a forward that reaches Herald anyway is pushed too): the
        // value must be a com method Herald can push to, unless the app forwards everything
        // to its own server (webhook mode), which gets the value as it is.
        if request.appConfiguration?.delivery.mode != .webhook, request.comMethod(value) == nil {
            let accepted = request.comMethodForms.isEmpty ? "none: the app has no provider account" : request.comMethodForms.joined(separator: ", ")
            throw GatewayError.invalid("value", "must be a com method Herald can push to for this app (\(accepted)); forwarding to the sponsor's own server is the app's webhook delivery mode")
        }
        return .sponsee(sponseeId: id, type: type, value: value)
    }

    static let schema = #"""
        type: object
        required: [type, value]
        description: "Types 3 (Verity forwards, Herald pushes) and 4 (Verity pushes; a forward that reaches Herald is pushed too) are both pushed to the com method in value: FCM:<token> (HMS:<token>, APNS:<token> where the app has that account); another value is 400, except in an app in webhook mode, whose server gets it as sponseeDetails. The sponsee is the path's: the Evernym SDK's com-method object may also carry its id (as id), which must then be the path's (400 otherwise), so a client built from this document leaves it out"
        properties:
          type: { enum: [3, 4] }
          value: { type: string, minLength: 1, maxLength: 4096, pattern: "^(FCM|HMS):.", description: "FCM:<token> or HMS:<token> where the app has that provider's account (APNS:<hex token> where it has APNs); in a webhook-mode app, anything the sponsor's server needs" }
        """#
}
