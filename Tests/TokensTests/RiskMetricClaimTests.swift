import Testing
import Tokens

@Suite("App Check tokens with the risk metric claim")
struct RiskMetricClaimTests {
    let app = "1:123456789012:ios:0123456789abcdef"

    @Test("a risk metric becomes the risk_metric claim, and the token still verifies")
    func carriesTheClaim() throws {
        let set = try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
        let minted = try AppCheckTokenIssuer(keys: set).mint(
            appID: app, projectNumber: "123456789012", projectID: "p", lifetime: .default, now: 1_800_000_000, riskMetric: 4)
        #expect(try JWTBuilder.segment(minted.token, 1)["risk_metric"] as? Int == 4)
        #expect(try AppCheckTokenVerifier(keys: set).verify(minted.token, project: "p", now: 1_800_000_010).appID == app)
    }

    @Test("without a risk metric there is no risk_metric claim")
    func noClaim() throws {
        let set = try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
        let minted = try AppCheckTokenIssuer(keys: set).mint(
            appID: app, projectNumber: "123456789012", projectID: "p", lifetime: .default, now: 1_800_000_000)
        #expect(try JWTBuilder.segment(minted.token, 1)["risk_metric"] == nil)
    }
}
