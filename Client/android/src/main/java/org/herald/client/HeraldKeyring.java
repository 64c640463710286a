package org.herald.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys an app holds, found by the {@code kid} a push names: its device keys for
 * {@code aes128gcm} and its addresses' keys for {@code jwe}. Keep an old key in the ring after
 * registering a new one until pushes encrypted to it can no longer arrive (their TTL, at most
 * four weeks). Safe to share between threads.
 */
public final class HeraldKeyring {
    private final Map<String, DeviceKeyPair> deviceKeys = new ConcurrentHashMap<>();
    private final Map<String, AddressKeyPair> addressKeys = new ConcurrentHashMap<>();

    public HeraldKeyring() {}

    public HeraldKeyring(List<DeviceKeyPair> deviceKeys, List<AddressKeyPair> addressKeys) {
        deviceKeys.forEach(this::add);
        addressKeys.forEach(this::add);
    }

    /** Adds {@code key}, replacing one of the same id. */
    public HeraldKeyring add(DeviceKeyPair key) {
        deviceKeys.put(key.keyId(), key);
        return this;
    }

    /** Adds {@code key}, replacing one of the same id. */
    public HeraldKeyring add(AddressKeyPair key) {
        addressKeys.put(key.keyId(), key);
        return this;
    }

    /** The device key of id {@code keyId}, or null. */
    public DeviceKeyPair deviceKey(String keyId) {
        return deviceKeys.get(keyId);
    }

    /** The address key of id {@code keyId}, or null. */
    public AddressKeyPair addressKey(String keyId) {
        return addressKeys.get(keyId);
    }
}
