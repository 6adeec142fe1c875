import AppAttest
import Basics
import Foundation

/// Apple's guide vector (a real production attestation from an iOS 27 device, 2026), as recorded beside the tests.
struct GuideVector {
    let attestation: [UInt8]
    let keyID: [UInt8]
    let clientDataHash: [UInt8]
    let appID: AppID
    let verifyAt: Int64
    let leafNotAfter: Int64

    static let shared = GuideVector()

    private init() {
        let url = Bundle.module.url(forResource: "apple-guide-2026-attestation", withExtension: "json", subdirectory: "Fixtures")!
        let json = try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        attestation = Base64.either.decode(json["attestation_b64"] as! String)!
        keyID = Base64.either.decode(json["key_id_b64"] as! String)!
        clientDataHash = Base64.either.decode(json["client_data_hash_b64"] as! String)!
        appID = AppID(json["app_id"] as! String)!
        verifyAt = RFC3339.parse(json["verify_at"] as! String)!.unixSeconds
        leafNotAfter = RFC3339.parse(json["leaf_not_after"] as! String)!.unixSeconds
    }
}
