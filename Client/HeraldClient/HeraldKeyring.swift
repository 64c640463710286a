/// The keys an app holds, found by the `kid` a push names: its device keys for `aes128gcm`
/// and its addresses' keys for `jwe`. Keep an old key in the ring after registering a new
/// one, until pushes encrypted to it can no longer arrive (their TTL, at most four weeks).
public struct HeraldKeyring: Sendable {
    private var deviceKeys: [String: DeviceKeyPair] = [:]
    private var addressKeys: [String: AddressKeyPair] = [:]

    public init(deviceKeys: [DeviceKeyPair] = [], addressKeys: [AddressKeyPair] = []) {
        deviceKeys.forEach { add($0) }
        addressKeys.forEach { add($0) }
    }

    /// Adds `key`, replacing one of the same id.
    public mutating func add(_ key: DeviceKeyPair) { deviceKeys[key.keyId] = key }

    /// Adds `key`, replacing one of the same id.
    public mutating func add(_ key: AddressKeyPair) { addressKeys[key.keyId] = key }

    public func deviceKey(id: String) -> DeviceKeyPair? { deviceKeys[id] }

    public func addressKey(id: String) -> AddressKeyPair? { addressKeys[id] }
}
