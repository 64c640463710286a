import DispatchKit

/// Push Kit's OAuth 2.0 client-credentials grant: the app's client id and secret exchanged
/// at Huawei's token endpoint for an access token of about an hour. Huawei allows about
/// 1,000 token requests per app in 5 minutes, so the token is cached (`AccessTokenCache`).
public enum HMSOAuth {
    public static let tokenURL = "https://oauth-login.cloud.huawei.com/oauth2/v3/token"

    public static func requestToken(clientId: String, clientSecret: String, at endpoint: OAuthTokenEndpoint) async throws -> AccessToken {
        try await endpoint.requestToken(form: OAuthTokenEndpoint.form([
            ("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", clientSecret),
        ]))
    }
}
