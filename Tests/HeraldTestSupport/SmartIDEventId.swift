import Crypto
import Foundation
import HeraldModel

/// The event id the gateway gives a Smart ID request: `smartid:<messageId>:<the first 8 bytes
/// of SHA-256 over pushId, in hex>` (one event per request and profile), worked out
/// independently of the gateway's code.
public func smartIDEventId(messageId: String, pushId: String) -> String {
    "smartid:\(messageId):\(Hex.encode(SHA256.hash(data: Data(pushId.utf8)).prefix(8)))"
}
