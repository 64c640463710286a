import HeraldDomain
import HeraldModel

/// Smart ID's device registration (`POST …/smartid/devices`): the app hands over its push
/// token (`deviceID`, also the device's id) and the profiles it listens to; a push request
/// for a profile then reaches it.
enum SmartIDDevice {
    static var route: SourceStateRoute {
        SourceStateRoute(
            operation: "smartIDDevices", method: .post, path: "/smartid/devices", summary: "register a Smart ID device under its profile ids",
            bodySchema: schema, reply: ##"{ $ref: "#/components/responses/Device" }"##, takesClientTokens: true, makeChange: change)
    }

    /// The profiles of `profileID` (one or a list) and `profileIDs` together, each trimmed of
    /// the white space around it as a push's `pushId` is; the OS; and the token, whose
    /// provider the gateway names ("For iOS: device token; For Android: device registration
    /// token": an APNs token when the app has APNs settings, else FCM's).
    @Sendable static func change(_ request: SourceStateRequest) throws(GatewayError) -> SourceStateChange {
        let body = request.body
        var profiles: [String] = []
        if body.has("profileID") {
            profiles += body.object["profileID"]?.arrayValue != nil ? try body.strings("profileID") : [try SourceEventIds.trimmedId(body, "profileID")]
        }
        if body.has("profileIDs") { profiles += try body.strings("profileIDs") }
        profiles = try SourceEventIds.trimmedIds(profiles, field: "profileID")
        guard !profiles.isEmpty else { throw GatewayError.invalid("profileID", "is required (or profileIDs)") }
        let os: DeviceOS = try body.oneOf("OS", ["iOS", "Android"]) == "iOS" ? .ios : .android
        let token = try body.string("deviceID", maxLength: TextLimits.identifier)
        let platform = try request.deviceTokenPlatform(token, os, "deviceID")
        return .pushIdDevice(token: token, os: os, platform: platform, pushIds: profiles)
    }

    static let schema = #"""
        type: object
        required: [OS, deviceID]
        description: the device's profiles are those of profileID and profileIDs together (at least one)
        anyOf: [{ required: [profileID] }, { required: [profileIDs] }]
        properties:
          profileID: { oneOf: [{ $ref: "#/components/schemas/ProfileId" }, { $ref: "#/components/schemas/ProfileIds" }] }
          profileIDs: { $ref: "#/components/schemas/ProfileIds" }
          OS: { enum: [iOS, Android] }
          deviceID: { $ref: "#/components/schemas/Id", description: "for iOS the APNs device token (hex) when the app has apns settings, else the FCM token; also the device's id" }
        """#
}
