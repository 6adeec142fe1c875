// fuzz-der-certificate: differential. Whatever `DERCertificate` (the short certificate path's strict DER reader)
// reads, OpenSSL's `d2i_X509` must read too, and the two must agree on every field the short path reads: serial,
// names, validity, key, signature and its algorithm, extensions. The input is the certificate, nothing else.
//
// The seeds are Apple's real App Attest leaf and intermediate and simulated leaves and root.
@_spi(Testing) import Crypto
import FuzzSupport

FuzzDriver.run { bytes in
    guard let short = try? DERCertificate(parsing: bytes) else { return }
    guard let openSSL = try? Certificate(derEncoded: bytes) else {
        preconditionFailure("the short path read a certificate OpenSSL refuses")
    }
    let fields = short.disagreements(with: openSSL)
    precondition(fields.isEmpty, "the short path and OpenSSL read \(fields) differently")
}
