import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's own calls to Herald, as its signed-in user: registering this device (or, for
/// Smart ID, its profile ids), removing it, and reading and writing its notification
/// configuration. Each call carries a client token the app's backend minted for the user
/// (`Authorization: Bearer`); when Herald answers 401 (the token expired), the registrar asks
/// the provider for a fresh one and tries once more. No API key is ever in the app.
public struct HeraldRegistrar: Sendable {
    /// Fetches a client token from the app's backend; `refresh` is true after Herald refused
    /// the last one, so a cached token must not be given again.
    public typealias TokenProvider = @Sendable (_ refresh: Bool) async throws -> String

    let gateway: URL
    let app: String
    let tokenProvider: TokenProvider
    let session: URLSession

    /// `gateway` is Herald's public address (`https://push.example.com`), `app` the app's id there.
    public init(gateway: URL, app: String, session: URLSession = .shared, tokenProvider: @escaping TokenProvider) {
        self.gateway = gateway
        self.app = app
        self.session = session
        self.tokenProvider = tokenProvider
    }

    /// Registers (or updates) this device under `deviceId` for the token's user: the push
    /// token of its provider (`platform` fcm, hms or apns; without it, the OS's own), and the
    /// key its pushes are encrypted to.
    public func registerDevice(
        deviceId: String, token: String, os: String, platform: String? = nil, locale: String? = nil, key: DeviceKeyPair.Registration? = nil
    ) async throws(HeraldClientError) {
        var body: [String: Any] = ["token": token, "os": os]
        if let platform { body["platform"] = platform }
        if let locale { body["locale"] = locale }
        if let key { body["key"] = ["keyId": key.keyId, "p256dh": key.p256dh, "auth": key.auth] }
        _ = try await send("PUT", "/devices/\(Self.segment(deviceId))", json: body)
    }

    /// Smart ID: this device's push token listens to `profileIds` (each within the token's `pushIds`).
    public func registerSmartIDDevice(deviceToken: String, os: String, profileIds: [String]) async throws(HeraldClientError) {
        _ = try await send("POST", "/smartid/devices", json: ["deviceID": deviceToken, "OS": os, "profileIDs": profileIds])
    }

    /// Removes this device: it gets no more pushes. Works signed out, with no client token:
    /// the device's push token (`token`, as registered) is the proof that the device is this
    /// app's. Repeatable: a device already removed is success.
    public func unregisterDevice(deviceId: String, token: String) async throws(HeraldClientError) {
        _ = try await send("POST", "/devices/\(Self.segment(deviceId))/unregister", json: ["token": token], authenticated: false)
    }

    /// The device's notification configuration and its version (`ETag`, for `setConfiguration`).
    public func configuration(deviceId: String) async throws(HeraldClientError) -> (configuration: NotificationConfiguration, entityTag: String?) {
        let (data, tag) = try await send("GET", "/devices/\(Self.segment(deviceId))/configuration")
        do { return (try NotificationConfiguration(reply: data), tag) } catch {
            throw HeraldClientError(.malformedPayload, "the configuration Herald answered is not readable")
        }
    }

    /// Writes the device's configuration; with `ifMatch` (the `entityTag` read), only over that
    /// version (else `requestFailed` with status 412). Answers the new version.
    @discardableResult
    public func setConfiguration(_ configuration: NotificationConfiguration, deviceId: String, ifMatch: String? = nil) async throws(HeraldClientError) -> String? {
        let body: Data
        do { body = try configuration.requestBody() } catch { throw HeraldClientError(.malformedPayload, "the configuration cannot be written as JSON") }
        return try await send("PUT", "/devices/\(Self.segment(deviceId))/configuration", body: body, ifMatch: ifMatch).entityTag
    }

    /// One call, again once with a fresh token after a 401; answers the body and the `ETag`.
    func send(_ method: String, _ path: String, json: [String: Any], authenticated: Bool = true) async throws(HeraldClientError) -> (body: Data, entityTag: String?) {
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: json) } catch { throw HeraldClientError(.malformedPayload, "the request cannot be written as JSON") }
        return try await send(method, path, body: body, authenticated: authenticated)
    }

    /// One call; `authenticated` ones carry a client token, and go again once with a fresh one after a 401.
    func send(_ method: String, _ path: String, body: Data? = nil, ifMatch: String? = nil, authenticated: Bool = true) async throws(HeraldClientError) -> (body: Data, entityTag: String?) {
        guard let url = URL(string: gateway.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/v1/apps/\(Self.segment(app))" + path) else {
            throw HeraldClientError(.requestFailed, "not a URL: \(gateway)")
        }
        for refresh in [false, true] {
            var request = URLRequest(url: url)
            request.httpMethod = method
            if authenticated {
                let token: String
                do { token = try await tokenProvider(refresh) } catch {
                    throw HeraldClientError(.unauthorized, "the token provider failed: \(error)")
                }
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            }
            if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
            if let body {
                request.httpBody = body
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let data: Data, response: URLResponse
            do { (data, response) = try await session.data(for: request) } catch {
                throw HeraldClientError(.requestFailed, "Herald did not answer: \(error.localizedDescription)")
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if (200..<300).contains(status) { return (data, (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag")) }
            let detail = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["detail"] as? String ?? "no detail"
            if status == 401, !refresh { continue }
            throw HeraldClientError(status == 401 ? .unauthorized : .requestFailed, "\(method) \(path): \(status) \(detail)", status: status)
        }
        throw HeraldClientError(.unauthorized, "\(method) \(path): the client token was refused", status: 401)
    }

    /// A path segment percent-encoded (an id may hold `/` or spaces).
    static func segment(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
    }
}
