import HeraldDomain
import HeraldModel

/// An email address's RSA public key (`PUT …/email/addresses/{id}/key`): a received email's
/// push is encrypted to it (JWE), for the owner's devices or, with `deviceId`, that device's own.
enum AddressKeyRegistration {
    static var route: SourceStateRoute {
        SourceStateRoute(
            operation: "emailAddressKey", method: .put, path: "/email/addresses/:id/key", summary: "the RSA public key (2048-4096 bits) of an email address",
            bodySchema: schema,
            reply: ##"{ description: the address key as stored, content: { application/json: { schema: { $ref: "#/components/schemas/AddressKeyReply" } } } }"##,
            takesClientTokens: true, makeChange: change)
    }

    /// A client token's key is its user's: the owner is the token's `sub` unless the body names one.
    @Sendable static func change(_ request: SourceStateRequest) throws(GatewayError) -> SourceStateChange {
        let body = request.body
        return .addressKey(
            emailAddressId: try request.parameter("id"), keyId: try body.string("keyId", maxLength: 256),
            publicKey: try body.string("publicKey", maxLength: 16 * 1024),
            ownerUserId: try body.optionalString("owner", maxLength: 256) ?? request.clientUserId,
            deviceId: try body.optionalString("deviceId", maxLength: TextLimits.identifier))
    }

    static let schema = #"""
        type: object
        required: [keyId, publicKey]
        properties:
          keyId: { $ref: "#/components/schemas/Id" }
          publicKey: { type: string, minLength: 1, maxLength: 16384, pattern: '^(-----BEGIN (RSA )?PUBLIC KEY-----\r?\n([A-Za-z0-9+/=]{1,76}\r?\n)+-----END (RSA )?PUBLIC KEY-----(\r?\n)?|[A-Za-z0-9+/]{4,}={0,2})$', description: "the key as SPKI (PUBLIC KEY) or PKCS#1 (RSA PUBLIC KEY) PEM, or its DER in base64 on one line; a key of that form that is not RSA of 2048 to 4096 bits is answered 422" }
          deviceId: { $ref: "#/components/schemas/Id", description: "the registered device whose key this is (one key per address and device); without it, the address's key for the owner's devices without their own" }
          owner: { $ref: "#/components/schemas/Id", description: the user whose devices hear about the address }
        """#
}
