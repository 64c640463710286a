import ProviderSandbox
import SwiftASN1
import Testing
import X509

@Suite("The sandbox's certificates")
struct SandboxCertificateTests {
    @Test("both carry key identifiers, and the server's names its CA's, as strict verifiers require")
    func keyIdentifiers() throws {
        let generated = try SandboxCertificates.generate()
        let ca = try Certificate(pemEncoded: generated.caPEM)
        let server = try Certificate(pemEncoded: generated.serverCertificatePEM)
        let caKeyId = try #require(try ca.extensions.subjectKeyIdentifier)
        #expect(try server.extensions.subjectKeyIdentifier != nil)
        #expect(try server.extensions.authorityKeyIdentifier?.keyIdentifier == caKeyId.keyIdentifier)
    }
}
