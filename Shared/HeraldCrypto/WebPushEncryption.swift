import Crypto
import Foundation

/// RFC 8291 message encryption for Web Push: `aes128gcm` content coding (RFC 8188) with a key
/// agreed between a fresh sender key and the device's P-256 key, mixed with the device's
/// auth secret. Herald encrypts with one record, as RFC 8291 requires; decryption (for
/// clients and tests) reads any number of records.
public enum WebPushEncryption {
    /// The content-coding name, also Herald's `enc` value in the data map.
    public static let scheme = "aes128gcm"
    public static let defaultRecordSize = 4096
    /// salt (16) + record size (4) + key id length (1) + sender public key (65).
    public static let headerSize = 86
    static let tagSize = 16

    /// The body size for a plaintext of `count` bytes: header, plaintext, delimiter, tag.
    public static func encryptedSize(plaintextCount count: Int) -> Int {
        headerSize + count + 1 + tagSize
    }

    /// Encrypts `plaintext` for `key`. `salt` and `senderKey` are fresh random values unless
    /// given (only tests give them, to reproduce RFC 8291's example).
    public static func encrypt(
        _ plaintext: some DataProtocol, to key: WebPushKey, recordSize: Int = defaultRecordSize,
        salt: Data? = nil, senderKey: P256.KeyAgreement.PrivateKey? = nil
    ) throws -> Data {
        let salt = salt ?? Data(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        guard salt.count == 16 else {
            throw HeraldCryptoError(.wrongLength, field: "salt", "the salt must be 16 bytes, got \(salt.count)")
        }
        guard plaintext.count + 1 + tagSize <= recordSize, recordSize <= Int(UInt32.max) else {
            throw HeraldCryptoError(.messageTooLarge, "\(plaintext.count) bytes do not fit one record of \(recordSize) bytes")
        }
        let sender = senderKey ?? freshSenderKey()
        let senderPublic = sender.publicKey.x963Representation
        let shared = try sender.sharedSecretFromKeyAgreement(with: key.publicKey)
        let keys = deriveKeys(
            shared: shared, salt: salt, authSecret: key.authSecret,
            receiverPublic: key.publicKeyBytes, senderPublic: senderPublic)

        var record = Data(plaintext)
        record.append(0x02)
        let sealed = try AES.GCM.seal(record, using: keys.cek, nonce: try AES.GCM.Nonce(data: keys.nonce))

        var body = Data(capacity: encryptedSize(plaintextCount: plaintext.count))
        body.append(salt)
        withUnsafeBytes(of: UInt32(recordSize).bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Decrypts an `aes128gcm` body with the device's private key and auth secret.
    public static func decrypt(
        _ body: some DataProtocol, privateKey: P256.KeyAgreement.PrivateKey, authSecret: Data
    ) throws -> Data {
        let body = Data(body)
        func malformed(_ text: String) -> HeraldCryptoError { HeraldCryptoError(.malformedMessage, text) }
        guard body.count >= 21 else { throw malformed("\(body.count) bytes are shorter than an aes128gcm header") }
        let bytes = [UInt8](body)
        let salt = Data(bytes[0..<16])
        let recordSize = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let idLength = Int(bytes[20])
        guard recordSize > 17 else { throw malformed("record size \(recordSize) is below the minimum of 18") }
        guard idLength == 65, bytes.count >= 21 + idLength else {
            throw malformed("the key id must be the sender's 65-byte public key, found \(idLength) bytes")
        }
        let senderPublic = Data(bytes[21..<(21 + idLength)])
        let sender: P256.KeyAgreement.PublicKey
        do { sender = try P256.KeyAgreement.PublicKey(x963Representation: senderPublic) } catch {
            throw malformed("the key id is not a P-256 public key")
        }
        let shared = try privateKey.sharedSecretFromKeyAgreement(with: sender)
        let keys = deriveKeys(
            shared: shared, salt: salt, authSecret: authSecret,
            receiverPublic: privateKey.publicKey.x963Representation, senderPublic: senderPublic)

        let content = bytes[(21 + idLength)...]
        guard !content.isEmpty else { throw malformed("no records") }
        var plaintext = Data()
        var offset = content.startIndex
        var sequence: UInt64 = 0
        while offset < content.endIndex {
            let end = min(offset + recordSize, content.endIndex)
            let isLast = end == content.endIndex
            let record = content[offset..<end]
            guard record.count > tagSize else { throw malformed("record \(sequence) is too short") }
            var nonce = keys.nonce
            for index in 0..<8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
            let opened: Data
            do {
                let box = try AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: nonce),
                    ciphertext: record.dropLast(tagSize), tag: record.suffix(tagSize))
                opened = try AES.GCM.open(box, using: keys.cek)
            } catch {
                throw HeraldCryptoError(.decryptionFailed, "record \(sequence) does not authenticate: tampered, or the wrong key or auth secret")
            }
            guard let delimiterIndex = opened.lastIndex(where: { $0 != 0 }) else {
                throw malformed("record \(sequence) has no padding delimiter")
            }
            let expected: UInt8 = isLast ? 0x02 : 0x01
            guard opened[delimiterIndex] == expected else {
                throw malformed("record \(sequence) ends with delimiter \(opened[delimiterIndex]), expected \(expected)")
            }
            plaintext.append(opened[opened.startIndex..<delimiterIndex])
            offset = end
            sequence += 1
        }
        return plaintext
    }

    /// A new ephemeral key for one message: a uniformly random scalar from the system CSPRNG
    /// (redrawn in the 2^-32 case that it is not below the group order). Same distribution as
    /// `P256.KeyAgreement.PrivateKey()`, whose generation adds a pairwise consistency check
    /// that costs more here than the whole rest of the encryption.
    static func freshSenderKey() -> P256.KeyAgreement.PrivateKey {
        while true {
            let scalar = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return key }
        }
    }

    /// RFC 8291 §3.3–3.4 and RFC 8188 §2.2: IKM from the ECDH secret and the auth secret,
    /// then the content-encryption key and the nonce from the salt.
    private static func deriveKeys(
        shared: SharedSecret, salt: Data, authSecret: Data, receiverPublic: Data, senderPublic: Data
    ) -> (cek: SymmetricKey, nonce: Data) {
        var keyInfo = Data("WebPush: info".utf8)
        keyInfo.append(0)
        keyInfo.append(receiverPublic)
        keyInfo.append(senderPublic)
        let ikm = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        return (cek, nonce.withUnsafeBytes { Data($0) })
    }
}
