import Crypto
import Foundation
@testable import Gateway
import Testing

/// Reading the Authorization header: the scheme in any case, spaces around the key.
struct APIKeyTests {
    static func digest(_ key: String) -> [UInt8] { Array(SHA256.hash(data: Data(key.utf8))) }

    @Test func theBearerSchemeIsReadInAnyCaseAndSpacesAroundTheKeyAreIgnored() {
        for header in ["Bearer k-1", "bearer k-1", "BEARER k-1", "Bearer   k-1  ", "Bearer \tk-1"] {
            #expect(APIKeys.bearerDigest(header) == Self.digest("k-1"), "\(header)")
        }
    }

    @Test func anotherSchemeOrAnEmptyKeyIsNoKey() {
        for header in ["Basic k-1", "Bearer", "Bearer ", "Bearer    ", "Bearer\u{0}k-1", "Bearerk-1", "", "k-1"] {
            #expect(APIKeys.bearerDigest(header) == nil, "\(header)")
        }
    }

    @Test func theKeysBytesAreHashedAsTheyAre() {
        #expect(APIKeys.bearerDigest("Bearer Ünïcode-key") == Self.digest("Ünïcode-key"))
        #expect(APIKeys.bearerDigest("Bearer k-1") != Self.digest("k-2"))
    }
}
