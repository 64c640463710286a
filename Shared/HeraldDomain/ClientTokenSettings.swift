/// An app's device-side client tokens (`clientTokens` in the apps file): JWTs its own backend
/// mints for one user, which the app presents instead of an API key. HS256 with the secret in
/// `hmacSecretFile`, ES256 with the public key in `publicKeyFile` (the tenant keeps the
/// private key), or both; a token may live at most `maxLifetime` seconds.
public struct ClientTokenSettings: Codable, Sendable, Hashable {
    public static let defaultMaxLifetime = 86_400
    /// The shortest and longest `maxLifetime` the file may set: a minute to thirty days.
    public static let lifetimeRange = 60...2_592_000
    /// HS256 secrets shorter than this are refused (RFC 7518 §3.2: at least the hash's size).
    public static let minimumSecretBytes = 32

    public var hmacSecretFile: String?
    public var publicKeyFile: String?
    public var maxLifetime: Int

    public init(hmacSecretFile: String? = nil, publicKeyFile: String? = nil, maxLifetime: Int = ClientTokenSettings.defaultMaxLifetime) {
        self.hmacSecretFile = hmacSecretFile
        self.publicKeyFile = publicKeyFile
        self.maxLifetime = maxLifetime
    }

    private enum CodingKeys: String, CodingKey { case hmacSecretFile, publicKeyFile, maxLifetime }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hmacSecretFile = try c.decodeIfPresent(String.self, forKey: .hmacSecretFile)
        publicKeyFile = try c.decodeIfPresent(String.self, forKey: .publicKeyFile)
        maxLifetime = try c.decodeIfPresent(Int.self, forKey: .maxLifetime) ?? Self.defaultMaxLifetime
    }
}
