import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway certificate authority and a server certificate it signed, so the sandbox can
/// serve HTTPS with HTTP/2 and clients can trust it through one CA file. Both carry key
/// identifiers (subject, and authority on the server's), which strict verifiers (OpenSSL's
/// X509_STRICT, as Python 3.13 and urllib3 2 use) require.
public struct SandboxCertificates: Sendable {
    /// The CA certificate (PEM): what clients trust.
    public let caPEM: String
    /// The server certificate (PEM), valid for `localhost`, `127.0.0.1` and the extra names.
    public let serverCertificatePEM: String
    /// The server's private key (PKCS#8 PEM).
    public let serverKeyPEM: String

    /// Generates a CA and a server certificate for `hostnames` (plus localhost and 127.0.0.1).
    public static func generate(hostnames: [String] = [], validity: TimeInterval = 365 * 86_400) throws -> SandboxCertificates {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            OrganizationName("Herald")
            CommonName("Herald sandbox CA")
        }
        let caPublicKey = Certificate.PublicKey(caKey.publicKey)
        let caKeyId = SubjectKeyIdentifier(hash: caPublicKey)
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: caPublicKey,
            notValidBefore: now - 3600, notValidAfter: now + validity,
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                caKeyId
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))

        let serverKey = P256.Signing.PrivateKey()
        var names: [GeneralName] = [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        for host in hostnames where host != "localhost" {
            if let octets = ipv4Octets(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(octets))))
            } else {
                names.append(.dnsName(host))
            }
        }
        let serverPublicKey = Certificate.PublicKey(serverKey.publicKey)
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: serverPublicKey,
            notValidBefore: now - 3600, notValidAfter: now + validity,
            issuer: caName, subject: try DistinguishedName { CommonName(hostnames.first ?? "localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: serverPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: caKeyId.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        return SandboxCertificates(
            caPEM: try ca.serializeAsPEM().pemString,
            serverCertificatePEM: try server.serializeAsPEM().pemString,
            serverKeyPEM: serverKey.pemRepresentation)
    }

    /// Writes `ca.pem`, `server.pem` and `server-key.pem` into `directory`.
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((caPEM + "\n").utf8).write(to: directory.appendingPathComponent("ca.pem"))
        try Data((serverCertificatePEM + "\n").utf8).write(to: directory.appendingPathComponent("server.pem"))
        try Data((serverKeyPEM + "\n").utf8).write(to: directory.appendingPathComponent("server-key.pem"), options: .atomic)
    }

    private static func ipv4Octets(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".")
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { UInt8($0) }
        return octets.count == 4 ? octets : nil
    }
}
